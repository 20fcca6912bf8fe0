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

export const DEFAULT_RETRY: RetryPolicy = Object.freeze({
  limit: 3,
  budgetMs: 10_000,
  backoffMs: 300,
  maxBackoffMs: 5_000,
});

/** Default time limit of one attempt, answer body included, in milliseconds. */
export const DEFAULT_TIMEOUT_MS = 30_000;

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

export interface UpstreamOptions {
  retry?: RetryPolicy;
  /** Time limit of one attempt, answer body included, in milliseconds (default 30 000). */
  timeoutMs?: number;
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

/**
 * Sends `exchange` under the policy, repeating it where that is safe, and reads the whole answer.
 * @throws ToolError for an error status (kind by status, the upstream's own message, the toolkit's
 *   advice, `retryAfterMs` on `rate_limited`), a timeout, a cancellation or an unreachable upstream.
 */
export async function sendUpstream(
  exchange: UpstreamExchange,
  options: UpstreamOptions = {},
): Promise<UpstreamAnswer> {
  const policy = options.retry ?? DEFAULT_RETRY;
  const send = options.fetch ?? ((input, init) => fetch(input, init));
  const { method, url, headers, body } = exchange;
  const once = (signal: AbortSignal) => send(url, { method, headers, body, signal });
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    const outcome = await attemptOnce(once, exchange.signal, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const wait = nextWait(outcome, {
      attempt,
      idempotent: exchange.idempotent,
      policy,
      elapsedMs: Date.now() - started,
    });
    if (wait === undefined) return settle(outcome, exchange, policy, options.advise);
    await sleep(wait, exchange.signal).catch((error: unknown) => {
      throw networkFailure({ error, timedOut: false }, exchange);
    });
  }
}

/** What one attempt came to: an answer (its body read), or the error that stopped it. */
type Attempt = { response: Response; text: string } | { error: unknown; timedOut: boolean };

/**
 * Sends once and reads the whole answer within `timeoutMs`. The caller's signal aborts it too;
 * a refused or cut connection comes back as `{ error }`, never thrown.
 */
async function attemptOnce(
  once: (signal: AbortSignal) => Promise<Response>,
  callerSignal: AbortSignal | undefined,
  timeoutMs: number,
): Promise<Attempt> {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutMs);
  const signal = callerSignal ? AbortSignal.any([callerSignal, timeout.signal]) : timeout.signal;
  try {
    const response = await once(signal);
    return { response, text: await response.text() };
  } catch (error) {
    return { error, timedOut: timeout.signal.aborted && !callerSignal?.aborted };
  } finally {
    clearTimeout(timer);
  }
}

interface RetryState {
  attempt: number;
  idempotent: boolean;
  policy: RetryPolicy;
  elapsedMs: number;
}

/**
 * How long to wait before trying again, in milliseconds, or undefined to stop. Waits follow
 * `Retry-After`/`ratelimit-reset` on 429 and 503, else exponential backoff with full jitter, and
 * never beyond the policy's budget.
 */
function nextWait(outcome: Attempt, state: RetryState): number | undefined {
  const { attempt, idempotent, policy, elapsedMs } = state;
  if (attempt >= policy.limit) return undefined;
  const backoff = Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** attempt) * Math.random();
  if ("error" in outcome) {
    if (!idempotent || outcome.timedOut || isAbort(outcome.error)) return undefined;
    return elapsedMs + policy.maxBackoffMs <= policy.budgetMs ? backoff : undefined;
  }
  const { status, headers } = outcome.response;
  if (!RETRY_STATUSES.has(status) || (status !== 429 && !idempotent)) return undefined;
  const asked = WAIT_STATUSES.has(status) ? retryAfterMs(headers) : undefined;
  const wait = asked ?? backoff;
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

const NOT_REPEATED =
  " The request may have reached the upstream, so it was not repeated (that could do it twice). Check whether it took effect before calling again.";

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

/** A request that got no (whole) answer, as a ToolError: cancelled, timed out or unreachable. */
function networkFailure(
  outcome: { error: unknown; timedOut: boolean },
  exchange: UpstreamExchange,
): ToolError {
  const { error, timedOut } = outcome;
  const { idempotent, label } = exchange;
  if (error instanceof ToolError) return error;
  // A cancelled call's fetch rejects with whatever reason the caller gave, not always an AbortError.
  if (exchange.signal?.aborted)
    return new ToolError("timeout", `${label} was cancelled.`, { retryable: false });
  const notRepeated = idempotent ? "" : NOT_REPEATED;
  if (timedOut)
    return new ToolError("timeout", `${label} timed out.${notRepeated}`, { retryable: idempotent });
  const reason =
    error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : "";
  return new ToolError(
    "upstream_unavailable",
    `${label} could not reach the upstream${reason ? ` (${reason})` : ""}.${notRepeated}`,
    { retryable: idempotent },
  );
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && error.name === "AbortError";
}
