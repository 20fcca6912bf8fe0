import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import {
  createContext,
  createHttpClient,
  envHost,
  type HttpClientOptions,
  runScoped,
  ToolError,
} from "../src/index.js";

// The upstream policy against real sockets: local node:http servers on 127.0.0.1 that drip,
// cut, flood and redirect, as upstreams (and whatever sits in front of them) do.

interface Seen {
  method: string;
  path: string;
  body: string;
}

type Handler = (req: IncomingMessage, res: ServerResponse, seen: Seen) => void;

/** A local upstream answering with `handle`; records every request and each closed answer. */
async function serve(handle: Handler) {
  const seen: Seen[] = [];
  const state = { closedEarly: 0 };
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const request = { method: req.method ?? "", path: req.url ?? "", body };
    seen.push(request);
    res.on("close", () => {
      if (!res.writableFinished) state.closedEarly++;
    });
    handle(req, res, request);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { origin, seen, state };
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const fastRetry = { limit: 3, budgetMs: 5_000, backoffMs: 5, maxBackoffMs: 20 };
const client = (baseUrl: string, options: Partial<HttpClientOptions> = {}) =>
  createHttpClient({ baseUrl, retry: fastRetry, ...options });

async function failure(promise: Promise<unknown>): Promise<ToolError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolError);
  return error as ToolError;
}

const JSON_TYPE = { "content-type": "application/json" };

/**
 * Writes `total` bytes of filler as fast as the client reads them, stopping when it goes away.
 * @returns how many bytes were handed to the socket so far.
 */
function flood(res: ServerResponse, total: number): () => number {
  const chunk = Buffer.alloc(64 * 1024, "x");
  let sent = 0;
  const pump = () => {
    while (sent < total && !res.destroyed) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once("drain", pump);
    }
    if (!res.destroyed) res.end();
  };
  pump();
  return () => sent;
}

describe("the time limit", () => {
  it("covers the whole answer: a body drip-fed past it times out, once, and the connection is closed", async () => {
    const upstream = await serve((_req, res) => {
      res.writeHead(200, JSON_TYPE);
      res.write('{"items":[');
      const timer = setInterval(() => res.write(" "), 50);
      res.on("close", () => clearInterval(timer));
    });
    const started = performance.now();
    const error = await failure(
      client(upstream.origin, { timeoutMs: 500 }).request({ method: "GET", path: "/drip" }),
    );
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(error.toText()).toBe(
      "timeout: GET /drip timed out while its answer was still arriving. Retrying later may succeed.",
    );
    expect(upstream.seen).toHaveLength(1);
    await expect.poll(() => upstream.state.closedEarly).toBe(1);
  });
});

describe("an answer cut off after its headers", () => {
  const cutAfterHeaders: Handler = (_req, res) => {
    res.writeHead(200, { ...JSON_TYPE, "content-length": "100" });
    res.write('{"items":[1,');
    setTimeout(() => res.socket?.destroy(), 20);
  };

  it("is read again for a GET, which then succeeds", async () => {
    const upstream = await serve((req, res) => {
      if (upstream.seen.length === 1) return cutAfterHeaders(req, res, upstream.seen[0] as Seen);
      res.writeHead(200, JSON_TYPE).end('{"items":[1,2]}');
    });
    const response = await client(upstream.origin).request({ method: "GET", path: "/thing" });
    expect(response.data).toEqual({ items: [1, 2] });
    expect(upstream.seen).toHaveLength(2);
  });

  it("is not repeated for a POST, and says the answer was cut off and the effect is unknown", async () => {
    const upstream = await serve(cutAfterHeaders);
    const error = await failure(
      client(upstream.origin).request({ method: "POST", path: "/send", body: { to: "all" } }),
    );
    expect(upstream.seen).toHaveLength(1);
    expect(error.kind).toBe("upstream_unavailable");
    expect(error.retryable).toBe(false);
    expect(error.toText()).toMatch(
      /^upstream_unavailable: POST \/send: the upstream's answer was cut off before it was complete \([^)]+\)\. The request reached the upstream, so its effect is unknown; it was not repeated \(that could do it twice\)\. Check whether it took effect before calling again\.$/,
    );
    expect(error.message).not.toContain("could not reach");
  });
});

describe("the size limit", () => {
  const LIMIT = 1_000_000;

  it("refuses a success answer whose Content-Length is over the limit without reading it", async () => {
    let sent = () => 0;
    const upstream = await serve((_req, res) => {
      res.writeHead(200, { ...JSON_TYPE, "content-length": String(300_000_000) });
      sent = flood(res, 300_000_000);
    });
    const error = await failure(
      client(upstream.origin, { maxBytes: LIMIT }).request({ method: "GET", path: "/huge" }),
    );
    expect(error.toText()).toBe(
      "upstream_error: GET /huge answered with 300 MB (its Content-Length), over the 1 MB limit on one upstream answer, so it was not read. Ask for less at a time (a smaller page or range, narrower filters).",
    );
    expect(upstream.seen).toHaveLength(1);
    await expect.poll(() => upstream.state.closedEarly).toBe(1);
    expect(sent()).toBeLessThan(50 * LIMIT);
  });

  it("stops reading a streamed answer at the limit and closes it", async () => {
    let sent = () => 0;
    const upstream = await serve((_req, res) => {
      res.writeHead(200, JSON_TYPE);
      sent = flood(res, 300_000_000);
    });
    const error = await failure(
      client(upstream.origin, { maxBytes: LIMIT }).request({ method: "GET", path: "/huge" }),
    );
    expect(error.kind).toBe("upstream_error");
    expect(error.retryable).toBe(false);
    expect(error.message).toBe(
      "GET /huge answered with more than 1 MB, the limit on one upstream answer, so reading stopped there. Ask for less at a time (a smaller page or range, narrower filters).",
    );
    expect(upstream.seen).toHaveLength(1);
    await expect.poll(() => upstream.state.closedEarly).toBe(1);
    // What the server handed its socket before the close: the limit plus socket buffers.
    expect(sent()).toBeLessThan(50 * LIMIT);
  });

  it("reads an answer of exactly the limit whole", async () => {
    const items = "x".repeat(LIMIT - '{"items":""}'.length);
    const upstream = await serve((_req, res) => res.writeHead(200, JSON_TYPE).end(`{"items":"${items}"}`));
    const response = await client(upstream.origin, { maxBytes: LIMIT }).request({ method: "GET", path: "/" });
    expect((response.data as { items: string }).items).toHaveLength(items.length);
  });

  it("decodes an answer that arrives in pieces, a character split between them", async () => {
    const bytes = Buffer.from('{"name":"Zoë Ångström 😀"}');
    // Cut inside "ë" (2 bytes) and inside "😀" (4 bytes).
    const [a, b] = [bytes.indexOf("ë") + 1, bytes.indexOf("😀") + 2];
    const pieces = [bytes.subarray(0, a), bytes.subarray(a, b), bytes.subarray(b)];
    const upstream = await serve(async (_req, res) => {
      res.writeHead(200, JSON_TYPE);
      for (const piece of pieces) {
        res.write(piece);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      res.end();
    });
    const response = await client(upstream.origin).request({ method: "GET", path: "/" });
    expect(response.data).toEqual({ name: "Zoë Ångström 😀" });
  });

  it("reads an answer with a Content-Length whole, its characters decoded as sent", async () => {
    const body = JSON.stringify({ name: "Zoë Ångström 😀", items: "x".repeat(5_000) });
    const upstream = await serve((_req, res) =>
      res.writeHead(200, { ...JSON_TYPE, "content-length": String(Buffer.byteLength(body)) }).end(body),
    );
    const response = await client(upstream.origin, { maxBytes: LIMIT }).request({ method: "GET", path: "/" });
    expect(response.data).toEqual(JSON.parse(body));
  });

  it("holds a compressed answer to the limit once decoded, whatever its Content-Length", async () => {
    const decoded = Buffer.from(`{"items":"${"x".repeat(2 * LIMIT)}"}`);
    const compressed = gzipSync(decoded);
    expect(compressed.byteLength).toBeLessThan(LIMIT);
    const upstream = await serve((_req, res) =>
      res
        .writeHead(200, {
          ...JSON_TYPE,
          "content-encoding": "gzip",
          "content-length": String(compressed.byteLength),
        })
        .end(compressed),
    );
    const error = await failure(
      client(upstream.origin, { maxBytes: LIMIT }).request({ method: "GET", path: "/packed" }),
    );
    expect(error.message).toBe(
      "GET /packed answered with more than 1 MB, the limit on one upstream answer, so reading stopped there. Ask for less at a time (a smaller page or range, narrower filters).",
    );
  });

  it("refuses more than the limit from a host fetch that declares less than it sends", async () => {
    const fetch = async () =>
      new Response("x".repeat(2 * LIMIT), { status: 200, headers: { ...JSON_TYPE, "content-length": "10" } });
    const error = await failure(
      client("https://api.example.test", { maxBytes: LIMIT, fetch }).request({
        method: "GET",
        path: "/lying",
      }),
    );
    expect(error.message).toBe(
      "GET /lying answered with more than 1 MB, the limit on one upstream answer, so reading stopped there. Ask for less at a time (a smaller page or range, narrower filters).",
    );
  });

  it("reads only the start of a huge error answer, for its message", async () => {
    const upstream = await serve((_req, res) => {
      res.writeHead(400, { "content-type": "text/plain" });
      res.write("Bad filter: ");
      flood(res, 300_000_000);
    });
    const error = await failure(client(upstream.origin).request({ method: "GET", path: "/bad" }));
    expect(error.kind).toBe("invalid_input");
    expect(error.message).toMatch(/^GET \/bad failed with HTTP 400: Bad filter: x+…\.$/);
    await expect.poll(() => upstream.state.closedEarly).toBe(1);
  });

  it("is the policy's default of 20 MB when nobody sets one", async () => {
    const upstream = await serve((_req, res) => {
      res.writeHead(200, { ...JSON_TYPE, "content-length": "20000001" });
      res.end();
    });
    const error = await failure(client(upstream.origin).request({ method: "GET", path: "/huge" }));
    expect(error.message).toContain("over the 20 MB limit on one upstream answer");
  });
});

describe("redirects", () => {
  it("never follow a POST to another origin: its body never reaches that host", async () => {
    const elsewhere = await serve((_req, res) => res.writeHead(200, JSON_TYPE).end('{"sent":true}'));
    const upstream = await serve((_req, res) =>
      res.writeHead(307, { location: `${elsewhere.origin}/collect` }).end(),
    );
    const error = await failure(
      client(upstream.origin).request({ method: "POST", path: "/send", body: { secret: "payload" } }),
    );
    expect(elsewhere.seen).toEqual([]);
    expect(upstream.seen).toHaveLength(1);
    expect(error.toText()).toBe(
      `upstream_error: POST /send was redirected (HTTP 307) to another origin, ${elsewhere.origin}. Requests are never redirected to other origins, so nothing was resent there; check that the toolkit's API URL setting points at the API itself.`,
    );
  });

  it("never follow a GET to another origin either", async () => {
    const elsewhere = await serve((_req, res) => res.writeHead(200, JSON_TYPE).end("{}"));
    const upstream = await serve((_req, res) =>
      res.writeHead(302, { location: `${elsewhere.origin}/x` }).end(),
    );
    const error = await failure(client(upstream.origin).request({ method: "GET", path: "/thing" }));
    expect(error.message).toContain(`to another origin, ${elsewhere.origin}`);
    expect(elsewhere.seen).toEqual([]);
    expect(upstream.seen).toHaveLength(1);
  });

  it("never resend a POST's body within its origin", async () => {
    const upstream = await serve((req, res) => {
      if (req.url === "/send") return void res.writeHead(308, { location: "/send-here" }).end();
      res.writeHead(200, JSON_TYPE).end('{"sent":true}');
    });
    const error = await failure(
      client(upstream.origin).request({ method: "POST", path: "/send", body: { n: 1 } }),
    );
    expect(upstream.seen.map(({ method, path }) => `${method} ${path}`)).toEqual(["POST /send"]);
    expect(error.message).toBe(
      `POST /send was redirected (HTTP 308) within ${upstream.origin}. A request body is never sent twice, so nothing was resent. Check whether it took effect before calling again.`,
    );
  });

  it("follow a GET within its origin", async () => {
    const upstream = await serve((req, res) => {
      if (req.url === "/old") return void res.writeHead(301, { location: "/new" }).end();
      res.writeHead(200, JSON_TYPE).end('{"moved":true}');
    });
    const response = await client(upstream.origin).request({ method: "GET", path: "/old" });
    expect(response.data).toEqual({ moved: true });
    expect(upstream.seen.map(({ path }) => path)).toEqual(["/old", "/new"]);
  });

  it("stop a same-origin loop after maxRedirects (default 3), once, not per retry", async () => {
    const upstream = await serve((_req, res) => res.writeHead(302, { location: "/loop" }).end());
    const error = await failure(client(upstream.origin).request({ method: "GET", path: "/loop" }));
    expect(upstream.seen).toHaveLength(4);
    expect(error.toText()).toBe(
      `upstream_error: GET /loop was redirected (HTTP 302) within ${upstream.origin} after 3 redirects already followed, the most allowed, so nothing more was sent.`,
    );
    const none = await serve((_req, res) => res.writeHead(307, { location: "/loop" }).end());
    await failure(client(none.origin, { maxRedirects: 0 }).request({ method: "GET", path: "/loop" }));
    expect(none.seen).toHaveLength(1);
  });
});

describe("Retry-After", () => {
  it.each(["0", "-5"])("of %s still backs off at least backoffMs before each retry", async (value) => {
    const arrivals: number[] = [];
    const upstream = await serve((_req, res) => {
      arrivals.push(performance.now());
      if (arrivals.length <= 3) return void res.writeHead(429, { "retry-after": value }).end();
      res.writeHead(200, JSON_TYPE).end('{"ok":true}');
    });
    const retry = { limit: 3, budgetMs: 5_000, backoffMs: 100, maxBackoffMs: 1_000 };
    const response = await client(upstream.origin, { retry }).request({ method: "GET", path: "/" });
    expect(response.data).toEqual({ ok: true });
    expect(upstream.seen).toHaveLength(4);
    const gaps = arrivals.slice(1).map((at, i) => at - (arrivals[i] as number));
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(95);
  });

  it("years ahead is not waited for, and reads 'Retry later' rather than a count of seconds", async () => {
    const upstream = await serve((_req, res) =>
      res.writeHead(429, { "retry-after": "Fri, 01 Jan 2099 00:00:00 GMT" }).end(),
    );
    const started = performance.now();
    const error = await failure(client(upstream.origin).request({ method: "GET", path: "/" }));
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(upstream.seen).toHaveLength(1);
    expect(error.toText()).toBe(
      "rate_limited: GET / failed with HTTP 429. Retry later: the upstream asked for a wait of over an hour.",
    );
  });

  it("of an hour or less is stated in seconds", () => {
    const error = new ToolError("rate_limited", "Slow down.", { retryAfterMs: 3_600_000 });
    expect(error.toText()).toBe("rate_limited: Slow down. Retry after 3600 s.");
  });
});

describe("runScoped", () => {
  it("aborts the sibling requests of a failed one, so none runs on after the answer", async () => {
    const upstream = await serve((req, res) => {
      if (req.url === "/missing") return void res.writeHead(404, JSON_TYPE).end('{"error":"Not Found"}');
      // The siblings hang until they are aborted.
    });
    const host = envHost({}, { upstream: { timeoutMs: 10_000 } });
    const context = createContext(host, {});
    expect(context.upstream).toEqual({ timeoutMs: 10_000 });
    const call = runScoped(context, (scoped) => {
      const http = client(upstream.origin, scoped.upstream);
      const get = (path: string) => http.request({ method: "GET", path, signal: scoped.signal });
      return Promise.all([get("/slow-1"), get("/slow-2"), get("/missing")]);
    });
    expect((await failure(call)).kind).toBe("not_found");
    await expect.poll(() => upstream.state.closedEarly).toBe(2);
    expect(context.signal.aborted).toBe(false);
  });

  it("given the call's own abort, runs on the call's signal and aborts it when the call fails", async () => {
    const own = new AbortController();
    const context = createContext(envHost({}), {}, { signal: own.signal });
    let seen: AbortSignal | undefined;
    const call = runScoped(
      context,
      async (scoped) => {
        seen = scoped.signal;
        throw new ToolError("not_found", "No such incident.");
      },
      (reason) => own.abort(reason),
    );
    expect((await failure(call)).kind).toBe("not_found");
    expect(seen).toBe(own.signal);
    expect(own.signal.aborted).toBe(true);
  });
});
