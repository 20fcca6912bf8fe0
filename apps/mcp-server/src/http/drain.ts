import type { Server as NodeServer, ServerResponse } from "node:http";
import { Server as NetServer } from "node:net";

/** How long answers written when the shutdown grace ends may take to flush, in milliseconds. */
const FLUSH_MS = 1_000;

/**
 * Shutdown, shared by every exchange: once `close` is called, new requests are refused and every
 * answer closes its connection; when the grace ends, `graceOver` aborts what is still running.
 */
export class Drain {
  draining = false;
  private readonly grace = new AbortController();
  readonly graceOver: AbortSignal = this.grace.signal;
  private readonly answering = new Set<ServerResponse>();

  track(res: ServerResponse): void {
    this.answering.add(res);
    res.once("close", () => this.answering.delete(res));
  }

  /**
   * Stops accepting connections, answers any new request 503 and every answer from then on with
   * `Connection: close`, and lets calls in flight finish for up to `graceMs`, then aborts those still
   * running. Resolves once every connection has closed.
   */
  close(server: NodeServer, graceMs: number): Promise<void> {
    this.draining = true;
    for (const res of this.answering) if (!res.headersSent) res.setHeader("connection", "close");
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.grace.abort();
        server.closeIdleConnections();
        // The 503s just written get a moment to reach their clients; a client that does not read
        // its answer must not hold the exit.
        setTimeout(() => server.closeAllConnections(), FLUSH_MS).unref();
      }, graceMs);
      // http.Server#close would also drop idle keep-alive connections at once, resetting clients
      // whose next request is already on its way. net.Server#close only stops accepting: an idle
      // connection then gets its next request answered 503 with Connection: close, or closes at
      // its keep-alive timeout.
      NetServer.prototype.close.call(server, () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
