import { request } from "node:http";
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startHttpServer } from "./spawn.js";

// What a client sees when others hold connections open, or when it sends a body too large, with
// real sockets against the built binary.

let server: RunningServer;
beforeAll(async () => {
  server = await startHttpServer(["--sandbox", "--toolkits", "pager"]);
});
afterAll(() => server?.stop());

/**
 * A GET of `path` on the server at `url` from `localAddress`; resolves with its status, rejects when
 * no answer comes within 5 s (the server counts as not serving that address).
 */
function get(url: string, path: string, localAddress: string): Promise<{ status: number }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: target.hostname, port: target.port, path, localAddress, agent: false, timeout: 5_000 },
      (res) => {
        res.resume();
        res.once("end", () => resolve({ status: res.statusCode ?? 0 }));
      },
    );
    req.once("timeout", () => req.destroy(new Error(`no answer to GET ${path} within 5 s`)));
    req.once("error", reject).end();
  });
}

/**
 * A connection from 127.0.0.1 to the server at `url`, once open; it sends `head` (nothing by
 * default), then nothing more.
 */
function held(url: string, head = ""): Promise<Socket> {
  const target = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: target.hostname, port: Number(target.port) }, () => {
      if (head) socket.write(head);
      resolve(socket);
    });
    // A connection the server refuses is closed at once: nothing to report.
    socket.on("error", () => {});
  });
}

/** A connection from 127.0.0.1 that sends the start of a request's headers, then nothing. */
const slowHeaders = () => held(server.url, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n");

describe("one address holding many slow connections", () => {
  it("leaves /healthz answering another address while 600 connections trickle their headers", async () => {
    const held = await Promise.all(Array.from({ length: 600 }, slowHeaders));
    try {
      const answer = await get(server.url, "/healthz", "127.0.0.2");
      expect(answer.status).toBe(200);
    } finally {
      for (const socket of held) socket.destroy();
    }
  });
});

describe("--max-connections 50 without a per-address setting", () => {
  let limited: RunningServer;
  beforeAll(async () => {
    limited = await startHttpServer(["--sandbox", "--toolkits", "pager", "--max-connections", "50"]);
  });
  afterAll(() => limited?.stop());

  it("one address opening 50 idle connections does not lock another address out", async () => {
    const idle = await Promise.all(Array.from({ length: 50 }, () => held(limited.url)));
    try {
      expect((await get(limited.url, "/healthz", "127.0.0.2")).status).toBe(200);
    } finally {
      for (const socket of idle) socket.destroy();
    }
  });
});

/**
 * POSTs 8 MiB to /mcp with fetch, from a buffer (its length declared) or a stream (chunked), ten
 * times; what each answer was: its status, or the error fetch saw.
 */
async function uploads(kind: "buffer" | "stream"): Promise<(number | string)[]> {
  const chunk = Buffer.alloc(64 * 1024, "x");
  const outcomes: (number | string)[] = [];
  for (let attempt = 0; attempt < 10; attempt++) {
    let sent = 0;
    const stream = new ReadableStream({
      pull(controller) {
        if (sent++ >= 128) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const body = kind === "buffer" ? Buffer.alloc(8 * 1024 * 1024, "x") : stream;
    const answer = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body,
      duplex: "half",
    } as RequestInit).then(
      async (response) => {
        await response.text();
        return response.status;
      },
      (error: Error & { cause?: { code?: string } }) => error.cause?.code ?? error.message,
    );
    outcomes.push(answer);
  }
  return outcomes;
}

describe("a body over --max-body-bytes", () => {
  it.each([
    ["declared by Content-Length", "buffer"],
    ["sent chunked", "stream"],
  ] as const)("%s: a client still sending 8 MiB reads the 413, every time", async (_, kind) => {
    expect(await uploads(kind)).toEqual(Array(10).fill(413));
  });
});
