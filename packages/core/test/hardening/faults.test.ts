import { afterEach, describe, expect, it, vi } from "vitest";
import { type RetryPolicy, sendUpstream, ToolError, type UpstreamExchange } from "../../src/index.js";
import {
  ANSWER_FAULTS,
  cutOffBody,
  dripFed,
  ELSEWHERE,
  oversizedBody,
  redirectTo,
} from "../../src/testing/index.js";

// The fault builders and the answer-fault table on core's upstream policy itself, with a fetch
// that answers every request with the fault: each table row holds for a read and a write before
// the toolkits' fault suite puts it through every toolkit.

const ORIGIN = "https://api.example.com";
/** Core's retry count with no waiting between attempts. */
const QUICK: RetryPolicy = { limit: 3, budgetMs: 10_000, backoffMs: 1, maxBackoffMs: 1 };

const read: UpstreamExchange = {
  method: "GET",
  url: `${ORIGIN}/items`,
  headers: {},
  idempotent: true,
  target: "/items",
  label: "GET /items",
};
const write: UpstreamExchange = {
  method: "POST",
  url: `${ORIGIN}/items`,
  headers: { "content-type": "application/json" },
  body: '{"name":"x"}',
  idempotent: false,
  target: "/items",
  label: "POST /items",
};

/** A fetch answering each request with `respond`, and the URLs it was sent to. */
function faultyFetch(respond: (request: Request) => Response) {
  const sent: string[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    sent.push(request.url);
    return respond(request);
  };
  return { fetch: fetch as typeof globalThis.fetch, sent };
}

/** The error `exchange` fails with. */
const failure = (promise: Promise<unknown>): Promise<ToolError> =>
  promise.then(
    () => {
      throw new Error("the request succeeded");
    },
    (error: unknown) => {
      if (error instanceof ToolError) return error;
      throw error;
    },
  );

afterEach(() => {
  vi.useRealTimers();
});

describe.each(ANSWER_FAULTS)("$name", (fault) => {
  it.each([
    ["a read", read, fault.read],
    ["a write", write, fault.write],
  ] as const)("fails %s as the table says", async (_, exchange, outcome) => {
    const { fetch, sent } = faultyFetch(fault.respond);
    const started = performance.now();
    const error = await failure(sendUpstream(exchange, { ...fault.limits, retry: QUICK, fetch }));
    const elapsed = performance.now() - started;
    expect(error.kind).toBe(outcome.kind);
    expect(error.toText()).toMatch(new RegExp(`^${outcome.kind}: ${exchange.label}[: ]`));
    expect(error.toText()).toMatch(outcome.says);
    expect(sent).toHaveLength(outcome.sent);
    expect(sent.filter((url) => url.startsWith(ELSEWHERE))).toEqual([]);
    expect(elapsed).toBeLessThan(fault.withinMs);
    if (fault.atLeastMs) expect(elapsed).toBeGreaterThanOrEqual(fault.atLeastMs - 10);
  });
});

describe("dripFed", () => {
  it("keeps sending until the time limit aborts the request, then stops its timer", async () => {
    vi.useFakeTimers();
    let bytes = 0;
    const { fetch } = faultyFetch((request) => {
      const response = dripFed(request, { everyMs: 10 });
      const counted = response.body?.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            bytes += chunk.byteLength;
            controller.enqueue(chunk);
          },
        }),
      );
      return new Response(counted, response);
    });
    const pending = failure(sendUpstream(read, { timeoutMs: 1_000, fetch }));
    await vi.advanceTimersByTimeAsync(1_000);
    expect((await pending).toText()).toMatch(/timed out while its answer was still arriving/);
    expect(bytes).toBeGreaterThan(50);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("stops its timer when the body is cancelled, or the request was aborted before", async () => {
    vi.useFakeTimers();
    const response = dripFed(new Request(ORIGIN));
    expect(vi.getTimerCount()).toBe(1);
    await response.body?.cancel();
    expect(vi.getTimerCount()).toBe(0);
    const aborted = dripFed(new Request(ORIGIN, { signal: AbortSignal.abort(new Error("gone")) }));
    expect(vi.getTimerCount()).toBe(0);
    await expect(aborted.text()).rejects.toThrow("gone");
  });
});

describe("cutOffBody", () => {
  it("sends its status and the start of a body, then fails as undici does when the connection drops", async () => {
    const response = cutOffBody(201);
    expect(response.status).toBe(201);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toMatch(/^\{"id":/);
    const error = await reader.read().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TypeError);
    expect(error).toMatchObject({ message: "terminated", cause: { message: "other side closed" } });
  });
});

describe("oversizedBody", () => {
  it("is JSON of exactly the size asked for, declaring it when told", async () => {
    const response = oversizedBody(300_000, { declare: true, chunkBytes: 1_000 });
    expect(response.headers.get("content-length")).toBe("300000");
    const text = await response.text();
    expect(Buffer.byteLength(text)).toBe(300_000);
    expect(JSON.parse(text).items[0]).toMatch(/^x+$/);
    expect(oversizedBody(10).headers.get("content-length")).toBeNull();
  });

  it("is made only as far as it is read: over a 200 kB limit, a 1 GB body costs a few chunks", async () => {
    let made = 0;
    const { fetch } = faultyFetch(() => {
      const response = oversizedBody(1_000_000_000);
      const counted = response.body?.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            made += chunk.byteLength;
            controller.enqueue(chunk);
          },
        }),
      );
      return new Response(counted, response);
    });
    const error = await failure(sendUpstream(read, { maxBytes: 200_000, fetch }));
    expect(error.toText()).toMatch(/answered with more than 200 kB/);
    expect(made).toBeLessThan(1_000_000);
  });
});

describe("redirectTo", () => {
  it("redirects with no body", async () => {
    const response = redirectTo(`${ELSEWHERE}/moved`, 307);
    expect(response.status).toBe(307);
    expect(response.headers.get("location")).toBe(`${ELSEWHERE}/moved`);
    expect(await response.text()).toBe("");
  });
});
