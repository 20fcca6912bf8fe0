import type { ServerResponse } from "node:http";
import { rpcError } from "./respond.js";

/**
 * Tool calls in flight over HTTP, by caller and JSON-RPC id. A 2025 client cancels with a
 * `notifications/cancelled` POST, which a stateless server receives apart from the call it names;
 * this is how that POST reaches the call.
 */
export class CallsInFlight {
  private readonly calls = new Map<string, Set<AbortController>>();

  /**
   * Registers the tool calls of one exchange (`ids`, from its body) for `caller`. Resolves each id
   * to its own controller, which the exchange's end and a cancellation abort; `close` forgets them
   * once the exchange is over.
   */
  open(
    caller: string,
    ids: readonly (string | number)[],
    exchange: Exchange,
  ): { call(id: string | number): AbortController | undefined; close(): void } {
    const opened = new Map<string, AbortController>();
    for (const id of ids) {
      const key = `${caller} ${String(id)}`;
      const call = exchange.call();
      opened.set(String(id), call);
      const set = this.calls.get(key) ?? new Set();
      this.calls.set(key, set.add(call));
    }
    return {
      call: (id) => opened.get(String(id)),
      close: () => {
        for (const [id, call] of opened) {
          const key = `${caller} ${id}`;
          const set = this.calls.get(key);
          set?.delete(call);
          if (!set?.size) this.calls.delete(key);
        }
      },
    };
  }

  cancel(caller: string, requestId: string | number): void {
    for (const call of this.calls.get(`${caller} ${String(requestId)}`) ?? []) call.abort();
  }
}

/** The ids of the tool calls in a body (one request or a batch). */
export function callIds(body: unknown): (string | number)[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((message) => {
    const { method, id } = (message ?? {}) as { method?: unknown; id?: unknown };
    return method === "tools/call" && (typeof id === "string" || typeof id === "number") ? [id] : [];
  });
}

/** The id of the request a `notifications/cancelled` message names, if `body` is one. */
export function cancelledRequestId(body: unknown): string | number | undefined {
  const message = body as { method?: unknown; params?: { requestId?: unknown } } | null;
  if (message?.method !== "notifications/cancelled") return undefined;
  const id = message.params?.requestId;
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}

/**
 * One HTTP exchange, which ends when the client goes away before the answer, when the request
 * takes longer than `timeoutMs` (then answered 504), or when `graceOver` aborts during a shutdown
 * (then answered 503), so its calls and their upstream requests stop. The end aborts each call's
 * controller directly, and the exchange's own signal only once something asked for it (the SDK's
 * path): a fast-path call then makes one signal, not three (each costs microseconds on Node 20).
 */
export class Exchange {
  #controller: AbortController | undefined;
  readonly #calls: AbortController[] = [];
  #ended = false;

  constructor(res: ServerResponse, timeoutMs: number, graceOver: AbortSignal) {
    const stop = (status: number, message: string) => {
      if (!res.headersSent) rpcError(res, status, message);
      else res.destroy();
      this.#end();
    };
    const timer = setTimeout(() => stop(504, `The request took longer than ${timeoutMs} ms.`), timeoutMs);
    const shutdown = () => stop(503, "The server shut down before the request finished.");
    if (graceOver.aborted) shutdown();
    else graceOver.addEventListener("abort", shutdown, { once: true });
    res.once("close", () => {
      clearTimeout(timer);
      graceOver.removeEventListener("abort", shutdown);
      if (!res.writableFinished) this.#end();
    });
  }

  /** Aborted when the exchange ends. */
  get signal(): AbortSignal {
    this.#controller ??= new AbortController();
    if (this.#ended) this.#controller.abort();
    return this.#controller.signal;
  }

  /** A controller for one of its calls, aborted when it ends. */
  call(): AbortController {
    const call = new AbortController();
    if (this.#ended) call.abort();
    else this.#calls.push(call);
    return call;
  }

  #end(): void {
    this.#ended = true;
    this.#controller?.abort();
    for (const call of this.#calls) call.abort();
  }
}
