import { type ErrorKind, kindForStatus, ToolError, upstreamMessage } from "./errors.js";

/**
 * The one policy every upstream request of every toolkit goes through (core's JSON client and the
 * Google client libraries alike): which requests may be repeated, which answers are retried and
 * after how long, the time limit, and how failures read to a model.
 */

/** When and how often to retry. All durations in milliseconds. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  limit: number;
  /** Most time spent waiting between attempts, in total; a longer wait fails with `retryAfterMs`. */
  budgetMs: number;
  /** First backoff; doubles per retry, with full jitter. */
  backoffMs: number;
  /** Cap on one backoff wait. */
  maxBackoffMs: number;
}

/** The retry policy wherever none is given: 3 retries within 10 s of waiting, backoff from 300 ms up to 5 s. */
export const DEFAULT_RETRY: RetryPolicy = Object.freeze({
  limit: 3,
  budgetMs: 10_000,
  backoffMs: 300,
  maxBackoffMs: 5_000,
});

/**
 * Limits on one upstream exchange. A host's operator may set them (`Host.upstream`, which each
 * toolkit's client passes on); a caller of `sendUpstream` may set them per request.
 */
export interface UpstreamLimits {
  /** Time limit of one attempt in milliseconds, redirects and the whole answer body included. */
  timeoutMs: number;
  /**
   * Most bytes of one answer body. A longer success answer fails with `upstream_error`: one whose
   * Content-Length says so is not read at all, any other is read up to the limit and then cancelled.
   */
  maxBytes: number;
  /** Same-origin redirects followed per attempt, and only for requests without a body; 0 follows none. */
  maxRedirects: number;
}

/** The limits wherever nobody sets one: 30 s per attempt, 20 MB per answer, 3 redirects. */
export const DEFAULT_UPSTREAM_LIMITS: Readonly<UpstreamLimits> = Object.freeze({
  timeoutMs: 30_000,
  maxBytes: 20_000_000,
  maxRedirects: 3,
});

/** One request as the policy sees it: already addressed, headed and encoded. */
export interface UpstreamExchange {
  method: string;
  url: string;
  headers: Readonly<Record<string, string>>;
  body?: string;
  /**
   * Whether sending it twice is harmless. Only idempotent requests are repeated after a failure or
   * an error answer; any request is repeated after a 429, which the upstream refused unrun.
   */
  idempotent: boolean;
  /** The caller's cancellation. */
  signal?: AbortSignal;
  /** What was called, for messages and advice: a path template (`/incidents/{id}`) or an API method id. */
  target: string;
  /** The values that filled the target's placeholders (`{ id: "P123" }`), for advice. */
  params?: Readonly<Record<string, string | number>>;
  /** How messages name the request, e.g. `GET /incidents/{id}` or `Google spreadsheets.get`. */
  label: string;
}

/** Facts about a failed upstream answer, for toolkit-specific advice. */
export interface FailureInfo {
  status: number;
  kind: ErrorKind;
  /** The upstream's own message, redacted; may be "". */
  upstream: string;
  /** The exchange's `method`, `target` and `params`. */
  request: { method: string; path: string; pathParams?: Readonly<Record<string, string | number>> };
}

/** The policy's settings; each limit left out takes its `DEFAULT_UPSTREAM_LIMITS` value. */
export interface UpstreamOptions extends Partial<UpstreamLimits> {
  retry?: RetryPolicy;
  /** Toolkit advice appended to an error message (e.g. "check PAGER_REGION"). */
  advise?: (failure: FailureInfo) => string | undefined;
  /** The fetch to send with (the host's: a sandbox fake, or the network); default the global one. */
  fetch?: typeof fetch;
}

/** An answer with a success status, its body read in full. */
export interface UpstreamAnswer {
  status: number;
  headers: Headers;
  /** The body as text; "" when empty. */
  text: string;
}

const RETRY_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);
/** Statuses whose answer may say when to come back (`Retry-After`, `ratelimit-reset`). */
const WAIT_STATUSES: ReadonlySet<number> = new Set([429, 503]);
/** Statuses that redirect when they carry a Location. */
const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
/** Most bytes of an error answer read: its message is all that is used, whatever `maxBytes` allows. */
const ERROR_BODY_BYTES = 64_000;

/**
 * Sends `exchange` under the policy, repeating it where that is safe, and reads the whole answer.
 * @throws ToolError for an error status (kind by status, the upstream's own message, the toolkit's
 *   advice, `retryAfterMs` on `rate_limited`), a timeout (the body's time included), a cancellation,
 *   an unreachable upstream or an answer cut off after its headers (`upstream_unavailable`), a
 *   success answer over `maxBytes` (`upstream_error`), or a redirect it may not follow
 *   (`upstream_error`: to another origin, of a request with a body, or past `maxRedirects`).
 */
export async function sendUpstream(
  exchange: UpstreamExchange,
  options: UpstreamOptions = {},
): Promise<UpstreamAnswer> {
  const policy = options.retry ?? DEFAULT_RETRY;
  const limits = upstreamLimits(options);
  const send = options.fetch ?? ((input, init) => fetch(input, init));
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    const outcome = await attemptOnce(exchange, send, limits);
    const wait = nextWait(outcome, {
      attempt,
      idempotent: exchange.idempotent,
      policy,
      elapsedMs: Date.now() - started,
    });
    if (wait === undefined) return settle(outcome, exchange, policy, options.advise);
    await sleep(wait, exchange.signal).catch((error: unknown) => {
      throw networkFailure({ error, timedOut: false, answered: false }, exchange);
    });
  }
}

/** The limits `options` sets, each one left out (or undefined) at its default. */
function upstreamLimits(options: Partial<UpstreamLimits>): UpstreamLimits {
  const defaults = DEFAULT_UPSTREAM_LIMITS;
  return {
    timeoutMs: options.timeoutMs ?? defaults.timeoutMs,
    maxBytes: options.maxBytes ?? defaults.maxBytes,
    maxRedirects: options.maxRedirects ?? defaults.maxRedirects,
  };
}

/**
 * What one attempt came to: an answer (its body read), or the error that stopped it, saying whether
 * the time limit stopped it and whether the answer had begun (its headers had arrived). A ToolError
 * here is a refusal (a redirect, an answer too large): final, never retried.
 */
type Attempt =
  | { response: Response; text: string }
  | { error: unknown; timedOut: boolean; answered: boolean };

/**
 * Sends once, following what redirects may be followed, and reads the whole answer, all within
 * `timeoutMs`. The caller's signal aborts it too; every failure comes back as `{ error }`, never thrown.
 */
async function attemptOnce(
  exchange: UpstreamExchange,
  send: typeof fetch,
  limits: UpstreamLimits,
): Promise<Attempt> {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), limits.timeoutMs);
  const caller = exchange.signal;
  const signal = caller ? AbortSignal.any([caller, timeout.signal]) : timeout.signal;
  let answered = false;
  try {
    const response = await follow(exchange, send, signal, limits.maxRedirects);
    answered = true;
    return { response, text: await readAnswer(response, exchange, limits.maxBytes) };
  } catch (error) {
    return { error, timedOut: timeout.signal.aborted && !caller?.aborted, answered };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Sends the exchange and follows its redirects itself: fetch's own following would replay a 307's
 * body to any host, and loop twenty times. Only a request without a body is redirected, only within
 * its origin, at most `maxRedirects` times.
 * @throws ToolError `upstream_error` for any other redirect; nothing is sent to its location.
 */
async function follow(
  exchange: UpstreamExchange,
  send: typeof fetch,
  signal: AbortSignal,
  maxRedirects: number,
): Promise<Response> {
  const { headers, body } = exchange;
  let { url, method } = exchange;
  for (let hops = 0; ; hops++) {
    const response = await send(url, { method, headers, body, signal, redirect: "manual" });
    const location = REDIRECT_STATUSES.has(response.status) ? response.headers.get("location") : null;
    if (location === null) return response;
    discard(response.body);
    url = followable(exchange, { status: response.status, from: url, location, hops, maxRedirects }).href;
    // A 303 points at a result to read, whatever the method was (fetch does the same).
    if (response.status === 303 && method !== "HEAD") method = "GET";
  }
}

interface Redirect {
  status: number;
  /** The URL that answered with the redirect. */
  from: string;
  /** Its Location header. */
  location: string;
  /** Redirects already followed. */
  hops: number;
  maxRedirects: number;
}

/**
 * Where a redirect leads, when it may be followed.
 * @throws ToolError `upstream_error` naming the location's origin when it may not: another origin,
 *   a request with a body, or `maxRedirects` already followed (or a Location that is no URL).
 */
function followable(exchange: UpstreamExchange, redirect: Redirect): URL {
  const { status, from, location, hops, maxRedirects } = redirect;
  const target = URL.canParse(location, from) ? new URL(location, from) : undefined;
  const why = !target
    ? " to a Location that is not a URL, so it was not followed."
    : target.origin !== new URL(from).origin
      ? ` to another origin, ${target.origin}. Requests are never redirected to other origins, so nothing was resent there; check that the toolkit's API URL setting points at the API itself.`
      : exchange.body !== undefined
        ? ` within ${target.origin}. A request body is never sent twice, so nothing was resent.${exchange.idempotent ? "" : CHECK_EFFECT}`
        : hops >= maxRedirects
          ? ` within ${target.origin} after ${hops} redirects already followed, the most allowed, so nothing more was sent.`
          : undefined;
  if (target && why === undefined) return target;
  const message = `${exchange.label} was redirected (HTTP ${status})${why}`;
  throw new ToolError("upstream_error", message, { status, retryable: false });
}

/**
 * The answer's body as text, read as it arrives: a success answer up to `maxBytes`, an error
 * answer up to ERROR_BODY_BYTES (for its message).
 * @throws ToolError `upstream_error` for a success answer longer than `maxBytes`; the stream's own
 *   error when the body is cut off.
 */
async function readAnswer(response: Response, exchange: UpstreamExchange, maxBytes: number): Promise<string> {
  if (!response.ok) return (await readBody(response.body, Math.min(maxBytes, ERROR_BODY_BYTES))).text;
  const declared = Number(response.headers.get("content-length"));
  if (declared > maxBytes) {
    discard(response.body);
    throw tooLarge(exchange, maxBytes, declared);
  }
  const { text, complete } = await readBody(response.body, maxBytes);
  if (!complete) throw tooLarge(exchange, maxBytes);
  return text;
}

/**
 * Reads `body` as UTF-8 up to `maxBytes`. Past that the rest is cancelled unread (the connection
 * closes), so memory holds at most `maxBytes` of any answer.
 * @returns the text read, and whether that was the whole body.
 * @throws the stream's error when the body is cut off or the attempt aborted.
 */
async function readBody(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<{ text: string; complete: boolean }> {
  if (!body) return { text: "", complete: true };
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let left = maxBytes;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text: text + decoder.decode(), complete: true };
    if (value.byteLength > left) {
      reader.cancel().catch(ignore);
      return { text: text + decoder.decode(value.subarray(0, left)), complete: false };
    }
    text += decoder.decode(value, { stream: true });
    left -= value.byteLength;
  }
}

/** Cancels a body nobody will read, closing its connection. */
function discard(body: ReadableStream | null): void {
  body?.cancel().catch(ignore);
}

// A cancelled body's stream may reject for its own reasons; the answer is decided already.
const ignore = (): void => {};

interface RetryState {
  attempt: number;
  idempotent: boolean;
  policy: RetryPolicy;
  elapsedMs: number;
}

/**
 * How long to wait before trying again, in milliseconds, or undefined to stop. Waits follow
 * `Retry-After`/`ratelimit-reset` on 429 and 503 (never shorter than `backoffMs`), else exponential
 * backoff with full jitter, and never beyond the policy's budget.
 */
function nextWait(outcome: Attempt, state: RetryState): number | undefined {
  const { attempt, idempotent, policy, elapsedMs } = state;
  if (attempt >= policy.limit) return undefined;
  const backoff = Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** attempt) * Math.random();
  if ("error" in outcome) {
    const { error, timedOut } = outcome;
    if (error instanceof ToolError || !idempotent || timedOut || isAbort(error)) return undefined;
    return elapsedMs + policy.maxBackoffMs <= policy.budgetMs ? backoff : undefined;
  }
  const { status, headers } = outcome.response;
  if (!RETRY_STATUSES.has(status) || (status !== 429 && !idempotent)) return undefined;
  const asked = WAIT_STATUSES.has(status) ? retryAfterMs(headers) : undefined;
  // `Retry-After: 0` (or a date gone by) would otherwise make every retry an immediate burst.
  const wait = asked === undefined ? backoff : Math.max(asked, policy.backoffMs);
  return elapsedMs + wait > policy.budgetMs ? undefined : wait;
}

function settle(
  outcome: Attempt,
  exchange: UpstreamExchange,
  policy: RetryPolicy,
  advise: UpstreamOptions["advise"],
): UpstreamAnswer {
  if ("error" in outcome) throw networkFailure(outcome, exchange);
  const { response, text } = outcome;
  if (!response.ok) throw statusFailure(response, text, exchange, policy, advise);
  return { status: response.status, headers: response.headers, text };
}

/**
 * The wait an upstream asked for, in milliseconds: `Retry-After` as seconds or an HTTP date,
 * else `ratelimit-reset` / `x-ratelimit-reset` as seconds. Undefined when none is usable.
 */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const retryAfter = headers.get("retry-after");
  if (retryAfter) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  const reset = Number(headers.get("ratelimit-reset") ?? headers.get("x-ratelimit-reset") ?? Number.NaN);
  return Number.isFinite(reset) ? Math.max(0, reset * 1000) : undefined;
}

/** Waits `ms`, or rejects with the caller's abort reason as soon as the call is cancelled. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

const CHECK_EFFECT = " Check whether it took effect before calling again.";
const NOT_REPEATED = ` The request may have reached the upstream, so it was not repeated (that could do it twice).${CHECK_EFFECT}`;
const EFFECT_UNKNOWN = ` The request reached the upstream, so its effect is unknown; it was not repeated (that could do it twice).${CHECK_EFFECT}`;

/**
 * An upstream error answer as a ToolError. The request is never kept as `cause`: it holds the
 * Authorization header, and a logged cause would leak it.
 */
function statusFailure(
  response: Response,
  text: string,
  exchange: UpstreamExchange,
  policy: RetryPolicy,
  advise: UpstreamOptions["advise"],
): ToolError {
  const { status, headers } = response;
  const { idempotent } = exchange;
  const kind = kindForStatus(status);
  const upstream = upstreamMessage(text);
  const advice = advise?.({
    status,
    kind,
    upstream,
    request: { method: exchange.method, path: exchange.target, pathParams: exchange.params },
  });
  const unknownOutcome = !idempotent && status >= 500 ? NOT_REPEATED : "";
  const said = upstream ? `: ${upstream}${/[.!?]$/.test(upstream) ? "" : "."}` : ".";
  const message = `${exchange.label} failed with HTTP ${status}${said}${advice ? ` ${advice}` : ""}${unknownOutcome}`;
  const retryAfter = kind === "rate_limited" ? (retryAfterMs(headers) ?? policy.maxBackoffMs) : undefined;
  const retryable = kind === "rate_limited" || (idempotent && RETRY_STATUSES.has(status));
  return new ToolError(kind, message, { status, retryAfterMs: retryAfter, retryable });
}

/**
 * A request that got no whole answer, as a ToolError: cancelled, timed out, unreachable, or its
 * answer cut off after the headers (then a request that is not idempotent may have taken effect).
 */
function networkFailure(
  outcome: { error: unknown; timedOut: boolean; answered: boolean },
  exchange: UpstreamExchange,
): ToolError {
  const { error, timedOut, answered } = outcome;
  const { idempotent, label } = exchange;
  if (error instanceof ToolError) return error;
  // A cancelled call's fetch rejects with whatever reason the caller gave, not always an AbortError.
  if (exchange.signal?.aborted)
    return new ToolError("cancelled", `${label} was cancelled.`, { retryable: false });
  const notRepeated = idempotent ? "" : answered ? EFFECT_UNKNOWN : NOT_REPEATED;
  if (timedOut) {
    const when = answered ? " while its answer was still arriving" : "";
    return new ToolError("timeout", `${label} timed out${when}.${notRepeated}`, { retryable: idempotent });
  }
  const reason =
    error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : "";
  const detail = reason ? ` (${reason})` : "";
  const what = answered
    ? `: the upstream's answer was cut off before it was complete${detail}.`
    : ` could not reach the upstream${detail}.`;
  return new ToolError("upstream_unavailable", `${label}${what}${notRepeated}`, { retryable: idempotent });
}

/**
 * A success answer over `maxBytes` as a ToolError; `declared` is its Content-Length when that
 * already said so (and nothing was read).
 */
function tooLarge(exchange: UpstreamExchange, maxBytes: number, declared?: number): ToolError {
  const limit = formatBytes(maxBytes);
  const size =
    declared === undefined
      ? `more than ${limit}, the limit on one upstream answer, so reading stopped there`
      : `${formatBytes(declared)} (its Content-Length), over the ${limit} limit on one upstream answer, so it was not read`;
  const effect = exchange.idempotent ? "" : ` The request itself may have taken effect.${CHECK_EFFECT}`;
  return new ToolError(
    "upstream_error",
    `${exchange.label} answered with ${size}. Ask for less at a time (a smaller page or range, narrower filters).${effect}`,
    { retryable: false },
  );
}

/** A byte count in decimal units for messages: `20 MB`, `64 kB`, `900 bytes`. */
function formatBytes(bytes: number): string {
  if (bytes >= 1e6) return `${Number((bytes / 1e6).toFixed(1))} MB`;
  if (bytes >= 1e3) return `${Number((bytes / 1e3).toFixed(1))} kB`;
  return `${bytes} bytes`;
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && error.name === "AbortError";
}
