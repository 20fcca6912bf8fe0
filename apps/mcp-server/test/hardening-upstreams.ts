import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request a local upstream received. */
export interface Received {
  method: string;
  /** Path and query. */
  url: string;
  body: string;
  /** When it arrived, on the performance clock (ms). */
  at: number;
}

/** How a local upstream answers one request; `seen` is the request, already read. */
export type Answer = (res: ServerResponse, seen: Received, req: IncomingMessage) => void;

/** A stand-in upstream on 127.0.0.1 whose answer each test sets; records what reaches it. */
export interface LocalUpstream {
  origin: string;
  /** The answer to every request from now on. */
  answer: Answer;
  received: Received[];
  /** Answers the client closed before they were complete (aborted, or cut off by its limits). */
  closedEarly: number;
  /** Forgets what was received and closed so far. */
  reset(): void;
  close(): Promise<void>;
}

/** Starts a local upstream that answers 404 until a test sets `answer`. */
export async function localUpstream(): Promise<LocalUpstream> {
  const upstream: LocalUpstream = {
    origin: "",
    answer: (res) => json(res, { error: { message: "Not Found" } }, 404),
    received: [],
    closedEarly: 0,
    reset() {
      upstream.received.length = 0;
      upstream.closedEarly = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const seen = { method: req.method ?? "", url: req.url ?? "", body, at: performance.now() };
    upstream.received.push(seen);
    res.on("close", () => {
      if (!res.writableFinished) upstream.closedEarly++;
    });
    upstream.answer(res, seen, req);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  upstream.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return upstream;
}

/** Answers `body` as JSON. */
export function json(res: ServerResponse, body: unknown, status = 200): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

/** Sends the headers and the start of a JSON body, then one byte a second, for as long as it is read. */
export function drip(res: ServerResponse): void {
  res.writeHead(200, { "content-type": "application/json" });
  res.write('{"services":[');
  const timer = setInterval(() => res.write(" "), 1_000);
  res.on("close", () => clearInterval(timer));
}

/** Sends the headers (a Content-Length of 2 kB) and a few bytes, then drops the connection. */
export function cutAfterHeaders(res: ServerResponse): void {
  res.writeHead(200, { "content-type": "application/json", "content-length": "2000" });
  res.write('{"id":');
  setTimeout(() => res.socket?.destroy(), 20);
}

/**
 * Streams `bytes` of a JSON body as fast as the client reads it, with a Content-Length when
 * `declare`; stops when the client goes away.
 * @returns how many bytes were handed to the socket so far.
 */
export function flood(res: ServerResponse, bytes: number, declare: boolean): () => number {
  res.writeHead(200, {
    "content-type": "application/json",
    ...(declare ? { "content-length": String(bytes) } : {}),
  });
  const chunk = Buffer.alloc(256 * 1024, " ");
  let sent = 0;
  const pump = () => {
    while (sent < bytes && !res.destroyed) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once("drain", pump);
    }
    if (!res.destroyed) res.end();
  };
  pump();
  return () => sent;
}

/** Redirects to `location` with `status`. */
export function redirect(res: ServerResponse, status: number, location: string): void {
  res.writeHead(status, { location }).end();
}

/** The peak resident memory of process `pid` (VmHWM), in bytes; Linux only. */
export async function peakMemory(pid: number): Promise<number> {
  const { readFile } = await import("node:fs/promises");
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kilobytes = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
  if (!kilobytes) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(kilobytes) * 1024;
}
