import type { ErrorKind } from "../errors.js";
import type { UpstreamLimits } from "../upstream.js";

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

const encoder = new TextEncoder();

/**
 * A JSON 200 whose headers come at once and whose body then trickles in, `chunk` every `everyMs`
 * (default a space every 50 ms), never ending: an upstream slower than any time limit on the whole
 * answer, though never silent for long. The drip stops, its stream failing with the abort reason,
 * as soon as `request`'s signal aborts (the client's time limit or cancellation), and when the
 * client cancels the body; no timer outlives the request.
 */
export function dripFed(request: Request, options: { everyMs?: number; chunk?: string } = {}): Response {
  const { everyMs = 50, chunk = " " } = options;
  let timer: ReturnType<typeof setInterval> | undefined;
  const stop = () => clearInterval(timer);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode('{"items":['));
      const { signal } = request;
      const abort = () => {
        stop();
        controller.error(signal.reason);
      };
      if (signal.aborted) return abort();
      signal.addEventListener("abort", abort, { once: true });
      timer = setInterval(() => {
        try {
          controller.enqueue(encoder.encode(chunk));
        } catch {
          stop();
        }
      }, everyMs);
    },
    cancel: stop,
  });
  return new Response(body, { status: 200, headers: JSON_TYPE });
}

/**
 * The error undici's fetch fails a body with when the connection drops mid-answer: "terminated",
 * caused by "other side closed".
 */
const connectionDropped = (): TypeError =>
  new TypeError("terminated", { cause: new Error("other side closed") });

/**
 * An answer cut off after its headers, as when the upstream acted and then the connection dropped:
 * `status` (default 200) and the start of a JSON body, then the stream fails with
 * `connectionDropped()` on the next read.
 */
export function cutOffBody(status = 200): Response {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode('{"id":"A1","name":"cut o'));
    },
    pull(controller) {
      controller.error(connectionDropped());
    },
  });
  return new Response(body, { status, headers: JSON_TYPE });
}

/** An origin no test serves: a redirect there must never be followed. */
export const ELSEWHERE = "http://elsewhere.example";

/** A redirect (default 302) to `location`, with no body. */
export const redirectTo = (location: string, status = 302): Response =>
  new Response(null, { status, headers: { location } });

/**
 * A JSON 200 of `bytes` bytes, `{"items":["xxx…"]}`, made as the client reads it in `chunkBytes`
 * pieces (default 64 KiB), so a test holds no more of it than the client reads. With `declare` it
 * also says its size in Content-Length.
 */
export function oversizedBody(
  bytes: number,
  options: { declare?: boolean; chunkBytes?: number } = {},
): Response {
  const { declare = false, chunkBytes = 65_536 } = options;
  const head = encoder.encode('{"items":["');
  const tail = encoder.encode('"]}');
  const filler = new Uint8Array(chunkBytes).fill(0x78);
  let left = Math.max(0, bytes - head.byteLength - tail.byteLength);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(head);
    },
    pull(controller) {
      if (left === 0) {
        controller.enqueue(tail);
        return controller.close();
      }
      const size = Math.min(left, chunkBytes);
      left -= size;
      controller.enqueue(filler.slice(0, size));
    },
  });
  const headers = new Headers(JSON_TYPE);
  if (declare) headers.set("content-length", String(bytes));
  return new Response(body, { status: 200, headers });
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

/** How one call must fail on a fault. */
export interface FaultOutcome {
  /** The error kind the caller must get. */
  kind: ErrorKind;
  /** Text the error message must contain. */
  says: RegExp;
  /** Requests sent in all, retries and followed redirects included. */
  sent: number;
}

/**
 * A fault in the answer itself (a body that trickles, breaks off or runs over, a redirect), and
 * how a read and a write must fail on it under core's upstream policy.
 */
export interface AnswerFault {
  name: string;
  /** The answer to `request` (its URL, method and signal may matter). */
  respond: (request: Request) => Response;
  /** Host limits (`Host.upstream`) under which the fault shows quickly and in little memory. */
  limits?: Partial<UpstreamLimits>;
  /** The most time the failing call may take, in milliseconds, retries included (generous: CI is slow). */
  withinMs: number;
  /** The least time it must take, when the fault is a limit that has to run out first. */
  atLeastMs?: number;
  /** On an idempotent request without a body (a read). */
  read: FaultOutcome;
  /** On a request that is not idempotent and sends a body (a create). */
  write: FaultOutcome;
}

/** The time limit under which a drip-fed answer is tested. */
const DRIP_LIMIT_MS = 400;
/** The answer size limit under which oversized answers are tested: 200 kB, not 20 MB. */
const SMALL_MAX_BYTES = 200_000;
/** A request that sends a body: redirected with 307, which would replay it. */
const hasBody = (request: Request) => request.method !== "GET" && request.method !== "HEAD";
const EFFECT_UNKNOWN =
  /The request reached the upstream, so its effect is unknown; it was not repeated \(that could do it twice\)\. Check whether it took effect before calling again\.$/;
const join = (...parts: RegExp[]) => new RegExp(parts.map((part) => part.source).join(""));

/**
 * Faults of the answer every toolkit must report alike: a read is repeated only after an answer cut
 * off (it changed nothing); a write is sent once, saying its effect is unknown where it reached the
 * upstream; redirects are never followed to another origin nor with a body, and at most 3 times.
 */
export const ANSWER_FAULTS: readonly AnswerFault[] = [
  {
    name: "a body drip-fed slower than the time limit",
    respond: (request) => dripFed(request),
    limits: { timeoutMs: DRIP_LIMIT_MS },
    atLeastMs: DRIP_LIMIT_MS,
    withinMs: 5_000,
    read: {
      kind: "timeout",
      says: /timed out while its answer was still arriving\. Retrying later may succeed\.$/,
      sent: 1,
    },
    write: {
      kind: "timeout",
      says: join(/timed out while its answer was still arriving\. /, EFFECT_UNKNOWN),
      sent: 1,
    },
  },
  {
    name: "a body cut off after the upstream acted",
    respond: (request) => cutOffBody(hasBody(request) ? 201 : 200),
    withinMs: 8_000,
    read: {
      kind: "upstream_unavailable",
      says: /: the upstream's answer was cut off before it was complete \(other side closed\)\. Retrying later may succeed\.$/,
      sent: 1 + RETRIES,
    },
    write: {
      kind: "upstream_unavailable",
      says: join(
        /: the upstream's answer was cut off before it was complete \(other side closed\)\. /,
        EFFECT_UNKNOWN,
      ),
      sent: 1,
    },
  },
  {
    name: "a redirect to another host",
    respond: (request) => redirectTo(`${ELSEWHERE}/moved`, hasBody(request) ? 307 : 302),
    withinMs: 5_000,
    read: {
      kind: "upstream_error",
      says: /was redirected \(HTTP 302\) to another origin, http:\/\/elsewhere\.example\. Requests are never redirected to other origins, so nothing was resent there; check that the toolkit's API URL setting points at the API itself\.$/,
      sent: 1,
    },
    write: {
      kind: "upstream_error",
      says: /was redirected \(HTTP 307\) to another origin, http:\/\/elsewhere\.example\. Requests are never redirected to other origins, so nothing was resent there;/,
      sent: 1,
    },
  },
  {
    name: "a redirect loop",
    respond: (request) => redirectTo(request.url, hasBody(request) ? 307 : 302),
    withinMs: 5_000,
    read: {
      kind: "upstream_error",
      says: /was redirected \(HTTP 302\) within https?:\/\/[^ ]+ after 3 redirects already followed, the most allowed, so nothing more was sent\.$/,
      sent: 4,
    },
    write: {
      kind: "upstream_error",
      says: /was redirected \(HTTP 307\) within https?:\/\/[^ ]+\. A request body is never sent twice, so nothing was resent\. Check whether it took effect before calling again\.$/,
      sent: 1,
    },
  },
  {
    name: "an oversized body, streamed",
    respond: () => oversizedBody(4 * SMALL_MAX_BYTES),
    limits: { maxBytes: SMALL_MAX_BYTES },
    withinMs: 5_000,
    read: {
      kind: "upstream_error",
      says: /answered with more than 200 kB, the limit on one upstream answer, so reading stopped there\. Ask for less at a time \(a smaller page or range, narrower filters\)\.$/,
      sent: 1,
    },
    write: {
      kind: "upstream_error",
      says: /answered with more than 200 kB, the limit on one upstream answer, so reading stopped there\. Ask for less at a time \(a smaller page or range, narrower filters\)\. The request itself may have taken effect\. Check whether it took effect before calling again\.$/,
      sent: 1,
    },
  },
  {
    name: "an oversized body, declared by Content-Length",
    respond: () => oversizedBody(4 * SMALL_MAX_BYTES, { declare: true }),
    limits: { maxBytes: SMALL_MAX_BYTES },
    withinMs: 5_000,
    read: {
      kind: "upstream_error",
      says: /answered with 800 kB \(its Content-Length\), over the 200 kB limit on one upstream answer, so it was not read\./,
      sent: 1,
    },
    write: {
      kind: "upstream_error",
      says: /answered with 800 kB \(its Content-Length\), over the 200 kB limit on one upstream answer, so it was not read\. .*The request itself may have taken effect\./,
      sent: 1,
    },
  },
];
