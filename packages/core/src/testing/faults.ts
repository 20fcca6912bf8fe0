import type { ErrorKind } from "../errors.js";

// Upstream failures to inject in tests, as Fetch API responses: an msw handler can return them
// as they are (`Response.error()` is a connection reset to msw), so core needs no msw.

const JSON_TYPE = { "content-type": "application/json" };

/** A JSON error body in the shape most upstreams use. */
export const jsonFailure = (status: number, message = `Injected failure ${status}`): Response =>
  new Response(JSON.stringify({ error: { message, code: status } }), { status, headers: JSON_TYPE });

/** A 429 carrying the given rate-limit headers (`retry-after`, `ratelimit-reset`). */
export const rateLimited = (headers: Record<string, string>): Response =>
  new Response(JSON.stringify({ error: { message: "Rate limit exceeded", code: 429 } }), {
    status: 429,
    headers: { ...JSON_TYPE, ...headers },
  });

/** A proxy's HTML error page, as load balancers answer when the service behind them is down. */
export const htmlErrorPage = (status = 502): Response =>
  new Response(
    "<!DOCTYPE html><html><head><title>502 Bad Gateway</title><style>body{font:14px sans-serif}</style></head>" +
      "<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>",
    { status, headers: { "content-type": "text/html" } },
  );

/** A 200 whose JSON is cut off mid-way. */
export const malformedJson = (): Response =>
  new Response('{"items": [{"id": "A1", "name": "trunc', { status: 200, headers: JSON_TYPE });

/** An empty 204 where a JSON body is expected. */
export const emptyNoContent = (): Response => new Response(null, { status: 204 });

/**
 * A response that never comes, like a hung upstream; the client's timeout or cancellation ends
 * the request (msw rejects the fetch when its signal aborts).
 */
export const hang = (): Promise<Response> => new Promise<Response>(() => {});

/** A JSON 200 of about `bytes` bytes: `build(filler)` makes the body around one long string. */
export function hugeJson(bytes: number, build: (filler: string) => unknown): Response {
  return new Response(JSON.stringify(build("x".repeat(bytes))), { status: 200, headers: JSON_TYPE });
}

/** One failure and how a client must handle it. */
export interface FaultCase {
  name: string;
  respond: () => Response;
  /** The error kind the caller must get. */
  kind: ErrorKind;
  /** Whether an idempotent request is retried (a non-idempotent one never is, but after a 429). */
  retried: boolean;
  /** Text the error message must contain. */
  says: RegExp;
  /** When the failure says when to retry, in seconds. */
  retryAfterSeconds?: number;
}

/** Retries after the first attempt, as core's DEFAULT_RETRY and the sheets client allow. */
export const RETRIES = 3;

/** Failures every toolkit must map to the same kind, retried when (and only when) safe. */
export const FAULT_CASES: readonly FaultCase[] = [
  {
    name: "a connection reset",
    respond: () => Response.error(),
    kind: "upstream_unavailable",
    retried: true,
    says: /could not reach/,
  },
  {
    name: "HTTP 500",
    respond: () => jsonFailure(500),
    kind: "upstream_error",
    retried: true,
    says: /HTTP 500: Injected failure 500/,
  },
  {
    name: "HTTP 502",
    respond: () => jsonFailure(502),
    kind: "upstream_unavailable",
    retried: true,
    says: /HTTP 502: Injected failure 502/,
  },
  {
    name: "HTTP 503",
    respond: () => jsonFailure(503),
    kind: "upstream_unavailable",
    retried: true,
    says: /HTTP 503: Injected failure 503/,
  },
  {
    name: "an HTML error page",
    respond: () => htmlErrorPage(502),
    kind: "upstream_unavailable",
    retried: true,
    says: /HTTP 502: 502 Bad Gateway[^<]*nginx/,
  },
  {
    name: "429 with Retry-After beyond the retry budget",
    respond: () => rateLimited({ "retry-after": "120" }),
    kind: "rate_limited",
    retried: false,
    says: /HTTP 429: Rate limit exceeded/,
    retryAfterSeconds: 120,
  },
  {
    name: "429 with ratelimit-reset beyond the retry budget",
    respond: () => rateLimited({ "ratelimit-reset": "90" }),
    kind: "rate_limited",
    retried: false,
    says: /HTTP 429: Rate limit exceeded/,
    retryAfterSeconds: 90,
  },
];

/** 429s the client must wait out and retry, idempotent or not (a refused request did not run). */
export const RATE_LIMITS: readonly { name: string; respond: () => Response }[] = [
  { name: "429 with Retry-After: 0", respond: () => rateLimited({ "retry-after": "0" }) },
  { name: "429 with ratelimit-reset: 0", respond: () => rateLimited({ "ratelimit-reset": "0" }) },
];
