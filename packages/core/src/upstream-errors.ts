import { kindForStatus, retryAfterMs, ToolError, upstreamMessage } from "./errors.js";
import type {
  RetryPolicy,
  UpstreamExchange,
  UpstreamFetch,
  UpstreamLimits,
  UpstreamOptions,
} from "./upstream.js";

/** What a client sends every exchange under: resolved once, when the client is made. */
export interface SendingClient {
  policy: RetryPolicy;
  limits: UpstreamLimits;
  advise: UpstreamOptions["advise"];
  fetch: UpstreamFetch;
}

// How upstream failures read to a model: what happened, whether the request may have taken
// effect, and what to do next.

/** One exchange on its way, across its attempts, with the client's settings it is sent under. */
export interface Sending {
  exchange: UpstreamExchange;
  /** The retry policy, limits, advice and fetch of the client sending it. */
  client: SendingClient;
  /** When the first attempt began (`Date.now()`), for the retry policy's budget. */
  started: number;
  /** Whether the current attempt's answer had begun (its headers had arrived). */
  answered: boolean;
  /** The current attempt's answer body, read whole. */
  text: string;
  /** Requests sent so far, every attempt's redirects included. */
  sent: number;
}

/**
 * An attempt worth another, for ky's retry decision: one with no whole answer (no connection, or a
 * body cut off: `cause` says why), or an error answer the policy may ask again (`response`).
 */
export class RetryableAttempt extends Error {
  override readonly name = "RetryableAttempt";

  constructor(
    readonly sending: Sending,
    readonly response?: Response,
    cause?: unknown,
  ) {
    super(
      response ? `The upstream answered HTTP ${response.status}.` : "The upstream gave no whole answer.",
      { cause },
    );
  }
}

/** Whether an error answer may be asked again: a 429 always (refused unrun), the others when idempotent. */
export const mayRetryAnswer = (status: number, idempotent: boolean): boolean =>
  RETRY_STATUSES.has(status) && (status === 429 || idempotent);

const CHECK_EFFECT = " Check whether it took effect before calling again.";
const NOT_REPEATED = ` The request may have reached the upstream, so it was not repeated (that could do it twice).${CHECK_EFFECT}`;
const EFFECT_UNKNOWN = ` The request reached the upstream, so its effect is unknown; it was not repeated (that could do it twice).${CHECK_EFFECT}`;
/** Statuses answered again after a wait (idempotent requests only, but for 429). */
export const RETRY_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

/**
 * An upstream error answer as a ToolError: kind by status, the upstream's own message, the advice,
 * `retryAfterMs` on `rate_limited`. The request is never kept as `cause`: it holds the
 * Authorization header, and a logged cause would leak it.
 */
export function statusFailure(
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
  const advice = (exchange.advise ?? advise)?.({
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
 * Whatever ended an exchange without an answer to map, as a ToolError: cancelled, timed out (ky's
 * `TimeoutError`), unreachable, or its answer cut off after the headers (then a request that is not
 * idempotent may have taken effect). A ToolError (a refusal) stays as it is.
 */
export function unansweredFailure(error: unknown, sending: Sending): ToolError {
  if (error instanceof ToolError) return error;
  const { exchange, answered } = sending;
  const { idempotent, label } = exchange;
  // A cancelled call's fetch rejects with whatever reason the caller gave, not always an AbortError.
  if (exchange.signal?.aborted)
    return new ToolError("cancelled", `${label} was cancelled.`, { retryable: false });
  const notRepeated = idempotent ? "" : answered ? EFFECT_UNKNOWN : NOT_REPEATED;
  if (error instanceof Error && error.name === "TimeoutError") {
    const when = answered ? " while its answer was still arriving" : "";
    return new ToolError("timeout", `${label} timed out${when}.${notRepeated}`, { retryable: idempotent });
  }
  const failed = error instanceof RetryableAttempt ? error.cause : error;
  const reason =
    failed instanceof Error ? (failed.cause instanceof Error ? failed.cause.message : failed.message) : "";
  const detail = reason ? ` (${reason})` : "";
  const what = answered
    ? `: the upstream's answer was cut off before it was complete${detail}.`
    : ` could not reach the upstream${detail}.`;
  return new ToolError("upstream_unavailable", `${label}${what}${notRepeated}`, { retryable: idempotent });
}

/** A redirect as core's fetch met it. */
export interface Redirect {
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
export function followable(exchange: UpstreamExchange, redirect: Redirect): URL {
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
 * A success answer over `maxBytes` as a ToolError; `declared` is its Content-Length when that
 * already said so (and nothing was read).
 */
export function tooLarge(exchange: UpstreamExchange, maxBytes: number, declared?: number): ToolError {
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
