import { HttpResponse, http } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  createHttpClient,
  expandPath,
  type HttpClient,
  retryAfterMs,
  ToolError,
  type UpstreamFetch,
  upstreamMessage,
} from "../src/index.js";

const BASE = "https://upstream.test";
const server = setupServer();
const seen: Request[] = [];
server.events.on("request:start", ({ request }) => seen.push(request.clone()));

beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(() => {
  server.resetHandlers();
  seen.length = 0;
});
afterAll(() => server.close());

const fastRetry = { limit: 3, budgetMs: 5_000, backoffMs: 5, maxBackoffMs: 20 };
const client = (overrides = {}): HttpClient =>
  createHttpClient({ baseUrl: BASE, retry: fastRetry, ...overrides });

/** Answers with each response in turn, then repeats the last one. */
function sequence(method: "get" | "post", responses: (() => Response)[]) {
  let call = 0;
  server.use(
    http[method](`${BASE}/thing`, () =>
      (responses[Math.min(call++, responses.length - 1)] as () => Response)(),
    ),
  );
}

async function failure(promise: Promise<unknown>): Promise<ToolError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolError);
  return error as ToolError;
}

describe("retry policy", () => {
  it("retries a 429 after the Retry-After seconds", async () => {
    sequence("get", [
      () => new HttpResponse(null, { status: 429, headers: { "retry-after": "1" } }),
      () => HttpResponse.json({ ok: 1 }),
    ]);
    const started = Date.now();
    const response = await client().request({ method: "GET", path: "/thing" });
    expect(response.data).toEqual({ ok: 1 });
    expect(seen).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it("retries a 429 whose Retry-After is an HTTP date", async () => {
    const at = new Date(Date.now() + 1_500).toUTCString();
    sequence("get", [
      () => new HttpResponse(null, { status: 429, headers: { "retry-after": at } }),
      () => HttpResponse.json({ ok: 2 }),
    ]);
    expect((await client().request({ method: "GET", path: "/thing" })).data).toEqual({ ok: 2 });
    expect(seen).toHaveLength(2);
  });

  it("retries a 429 after ratelimit-reset seconds", async () => {
    sequence("get", [
      () => new HttpResponse(null, { status: 429, headers: { "ratelimit-reset": "1" } }),
      () => HttpResponse.json({ ok: 3 }),
    ]);
    expect((await client().request({ method: "GET", path: "/thing" })).data).toEqual({ ok: 3 });
    expect(seen).toHaveLength(2);
  });

  it("retries a 503 on GET", async () => {
    sequence("get", [() => new HttpResponse("busy", { status: 503 }), () => HttpResponse.json({ ok: 4 })]);
    expect((await client().request({ method: "GET", path: "/thing" })).data).toEqual({ ok: 4 });
    expect(seen).toHaveLength(2);
  });

  it("never repeats a POST that got a 503, and says the outcome is unknown", async () => {
    sequence("post", [() => new HttpResponse("busy", { status: 503 })]);
    const error = await failure(client().request({ method: "POST", path: "/thing", body: { send: true } }));
    expect(seen).toHaveLength(1);
    expect(error.kind).toBe("upstream_unavailable");
    expect(error.retryable).toBe(false);
    expect(error.message).toContain("was not repeated");
  });

  it("retries a POST that was refused with 429", async () => {
    sequence("post", [
      () => new HttpResponse(null, { status: 429, headers: { "retry-after": "0" } }),
      () => HttpResponse.json({ sent: true }),
    ]);
    expect((await client().request({ method: "POST", path: "/thing", body: {} })).data).toEqual({
      sent: true,
    });
    expect(seen).toHaveLength(2);
  });

  it("gives rate_limited with retryAfterMs when the wait exceeds the budget, without waiting", async () => {
    sequence("get", [() => new HttpResponse(null, { status: 429, headers: { "ratelimit-reset": "120" } })]);
    const started = Date.now();
    const error = await failure(client().request({ method: "GET", path: "/thing" }));
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(seen).toHaveLength(1);
    expect(error.kind).toBe("rate_limited");
    expect(error.retryAfterMs).toBe(120_000);
    expect(error.toText()).toContain("Retry after 120 s.");
  });

  it("gives rate_limited after the retry limit", async () => {
    sequence("get", [() => new HttpResponse(null, { status: 429, headers: { "retry-after": "0" } })]);
    const error = await failure(client().request({ method: "GET", path: "/thing" }));
    expect(seen).toHaveLength(4);
    expect(error.kind).toBe("rate_limited");
    expect(error.retryAfterMs).toBe(0);
  });

  it("retries a GET after a network error, and not a POST", async () => {
    sequence("get", [() => HttpResponse.error(), () => HttpResponse.json({ ok: 5 })]);
    expect((await client().request({ method: "GET", path: "/thing" })).data).toEqual({ ok: 5 });
    seen.length = 0;
    sequence("post", [() => HttpResponse.error()]);
    const error = await failure(client().request({ method: "POST", path: "/thing", body: {} }));
    expect(seen).toHaveLength(1);
    expect(error.kind).toBe("upstream_unavailable");
  });

  it("times out a slow answer as timeout", async () => {
    server.use(http.get(`${BASE}/thing`, async () => new Promise<Response>(() => {})));
    const error = await failure(client({ timeoutMs: 50 }).request({ method: "GET", path: "/thing" }));
    expect(error.kind).toBe("timeout");
  });

  it("reports a call cancelled with any reason as cancelled, without retrying", async () => {
    server.use(http.get(`${BASE}/thing`, async () => new Promise<Response>(() => {})));
    const controller = new AbortController();
    const pending = client().request({ method: "GET", path: "/thing", signal: controller.signal });
    setTimeout(() => controller.abort("the user pressed stop"), 20);
    const error = await failure(pending);
    expect(error.toText()).toBe("cancelled: GET /thing was cancelled.");
    expect(seen).toHaveLength(1);
  });

  it("refuses a header value fetch cannot send, naming the header, before sending", async () => {
    const error = await failure(
      client().request({ method: "GET", path: "/thing", headers: { "accept-language": "čeština" } }),
    );
    expect(error.kind).toBe("invalid_input");
    expect(error.message).toContain("The accept-language header cannot carry");
    expect(seen).toHaveLength(0);
  });

  it("parses both Retry-After forms and ratelimit-reset", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs(new Headers({ "retry-after": "7" }), now)).toBe(7_000);
    expect(retryAfterMs(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:30 GMT" }), now)).toBe(30_000);
    expect(retryAfterMs(new Headers({ "ratelimit-reset": "12" }), now)).toBe(12_000);
    expect(retryAfterMs(new Headers({}), now)).toBeUndefined();
  });
});

describe("path encoding", () => {
  it.each([
    ["a/b", "/items/a%2Fb"],
    ["?", "/items/%3F"],
    ["#", "/items/%23"],
    ["a+b@example.com", "/items/a%2Bb%40example.com"],
    ["../x", "/items/..%2Fx"],
  ])("keeps %s inside one segment", async (id, expected) => {
    server.use(http.get(`${BASE}/items/:id`, ({ params }) => HttpResponse.json({ id: params.id })));
    const response = await client().request({ method: "GET", path: "/items/{id}", pathParams: { id } });
    expect(new URL(seen[0]?.url ?? "").pathname).toBe(expected);
    expect(response.data).toEqual({ id });
  });

  it("refuses dot segments and empty values before sending anything", () => {
    expect(() => expandPath("/items/{id}", { id: ".." })).toThrow('Path parameter id cannot be ".."');
    expect(() => expandPath("/items/{id}", { id: "" })).toThrow(
      "Path parameter id must be a non-empty value",
    );
    expect(() => expandPath("/items/{id}", {})).toThrow(ToolError);
  });

  it("repeats array query parameters and skips undefined ones", async () => {
    server.use(http.get(`${BASE}/thing`, () => HttpResponse.json({})));
    await client().request({
      method: "GET",
      path: "/thing",
      query: { "statuses[]": ["triggered", "acknowledged"], limit: 10, since: undefined },
    });
    expect(new URL(seen[0]?.url ?? "").search).toBe(
      "?statuses%5B%5D=triggered&statuses%5B%5D=acknowledged&limit=10",
    );
  });
});

describe("upstream error mapping", () => {
  it.each([
    [
      { error: { message: "Invalid Input Provided", code: 2001, errors: ["Status must be a list"] } },
      "Invalid Input Provided; Status must be a list",
    ],
    [
      { error: { code: 404, message: "Requested entity was not found.", status: "NOT_FOUND" } },
      "Requested entity was not found.",
    ],
    [{ meta: { error: "Invalid phone number format" } }, "Invalid phone number format"],
    [{ meta: { errors: ["first problem", "second problem"] } }, "first problem; second problem"],
    [
      { errors: [{ detail: "is required", status: "422", source: { pointer: "/data/name" } }] },
      "is required (at /data/name)",
    ],
  ])("reads %j", (body, expected) => {
    expect(upstreamMessage(JSON.stringify(body))).toBe(expected);
  });

  it("reads an HTML error page as its text", () => {
    expect(
      upstreamMessage(
        "<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>",
      ),
    ).toBe("502 Bad Gateway");
  });

  it("maps statuses to kinds and quotes the upstream message with toolkit advice", async () => {
    server.use(
      http.get(`${BASE}/missing`, () =>
        HttpResponse.json({ error: { message: "Incident Not Found", code: 5001 } }, { status: 404 }),
      ),
      http.get(`${BASE}/denied`, () =>
        HttpResponse.json({ error: { message: "Access Denied" } }, { status: 403 }),
      ),
    );
    const advise = ({ status }: { status: number }) =>
      status === 404 ? "Use ListIncidents to find ids." : undefined;
    const notFound = await failure(client({ advise }).request({ method: "GET", path: "/missing" }));
    expect(notFound.kind).toBe("not_found");
    expect(notFound.message).toBe(
      "GET /missing failed with HTTP 404: Incident Not Found. Use ListIncidents to find ids.",
    );
    const denied = await failure(client().request({ method: "GET", path: "/denied" }));
    expect(denied.kind).toBe("forbidden");
    expect(denied.retryable).toBe(false);
  });

  it("reports malformed JSON on success as upstream_error", async () => {
    server.use(
      http.get(
        `${BASE}/thing`,
        () => new HttpResponse("{not json", { headers: { "content-type": "application/json" } }),
      ),
    );
    const error = await failure(client().request({ method: "GET", path: "/thing" }));
    expect(error.kind).toBe("upstream_error");
    expect(error.message).toContain("not JSON");
  });

  it("returns undefined data for an empty 204", async () => {
    server.use(http.delete(`${BASE}/thing`, () => new HttpResponse(null, { status: 204 })));
    const response = await client().request({ method: "DELETE", path: "/thing" });
    expect(response).toMatchObject({ status: 204, data: undefined });
  });
});

describe("what the host's fetch is told of each request", () => {
  it("names the target and the whole path's template, counting every resend; a redirect's hop has no template", async () => {
    const told: unknown[] = [];
    const answers = [
      () => new Response(null, { status: 503 }),
      () => new Response(null, { status: 302, headers: { location: `${BASE}/v2/moved/P123` } }),
      () => Response.json({ ok: 1 }),
    ];
    const fetch: UpstreamFetch = async (_input, init) => {
      told.push(init?.about);
      return (answers[told.length - 1] as () => Response)();
    };
    const api = createHttpClient({ baseUrl: `${BASE}/v2/`, retry: fastRetry, fetch });
    const response = await api.request({
      method: "GET",
      path: "/incidents/{id}",
      pathParams: { id: "P123" },
    });
    expect(response.data).toEqual({ ok: 1 });
    expect(told).toEqual([
      { target: "/incidents/{id}", template: "/v2/incidents/{id}", resendCount: 0 },
      { target: "/incidents/{id}", template: "/v2/incidents/{id}", resendCount: 1 },
      { target: "/incidents/{id}", template: undefined, resendCount: 2 },
    ]);
    // The values never reach what the host is told.
    expect(JSON.stringify(told)).not.toContain("P123");
  });
});
