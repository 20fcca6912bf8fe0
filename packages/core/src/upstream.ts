import { setTimeout as sleep } from "node:timers/promises";
import type { KyInstance, NormalizedOptions, Options } from "ky";
import { type ErrorKind, retryAfterMs } from "./errors.js";
import type { RateBudget } from "./tool.js";
import {
  RetryableAttempt,
  type Sending,
  type SendingClient,
  statusFailure,
  unansweredFailure,
} from "./upstream-errors.js";
import { answeringFetch } from "./upstream-fetch.js";

/**
 * The one policy every upstream request of every toolkit goes through (core's JSON client and the
 * Google client libraries alike), expressed as ky's options and hooks: which requests may be
 * repeated, which answers are retried and after how long, the time limit, and how failures read to
 * a model. Beneath ky, its fetch follows redirects and caps answers (upstream-fetch.ts).
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
  /**
   * The URL's whole path as a template (`/v2/incidents/{id}`: the base URL's path and `target`),
   * when the URL was built from one; told to the host's fetch (`UpstreamInit.about`).
   */
  template?: string;
  /** How messages name the request, e.g. `GET /incidents/{id}` or `Google spreadsheets.get`. */
  label: string;
  /** The rate budget it counts against, named to the host's fetch (`UpstreamInit.budget`). */
  budget?: RateBudget;
  /** Advice on its failures, in place of the client's `advise`. */
  advise?: UpstreamOptions["advise"];
}

/**
 * What core's clients pass a host's fetch besides the request: the standard init, and the rate
 * budget the request counts against, which a host serving many people counts per person. Only the
 * host reads it; nothing of it is sent upstream.
 */
export interface UpstreamInit extends RequestInit {
  budget?: RateBudget;
  /** What the request is, for a host that records its requests (telemetry). */
  about?: UpstreamRequestFacts;
}

/**
 * What core's clients tell a host's fetch about one request they send, for its records (spans,
 * metrics): names and counts, never a value that filled a template, a query or a body.
 */
export interface UpstreamRequestFacts {
  /** What was called: a path template relative to the base URL (`/incidents/{id}`) or an API method id (`spreadsheets.get`). */
  target: string;
  /**
   * The URL's whole path as a template (`/v2/incidents/{id}`), when the client built the URL from
   * one; absent for a redirect's hop, whose URL the upstream chose.
   */
  template?: string;
  /** How many times the exchange was sent before this request (retries and redirects followed): 0 at first. */
  resendCount: number;
}

/** The fetch a host gives toolkits (`Host.fetch`): the standard one, given an `UpstreamInit`. */
export type UpstreamFetch = (input: string | URL | Request, init?: UpstreamInit) => Promise<Response>;

/**
 * The fetch upstream requests go through, decided in one place: the one `holder` gives (a host's,
 * an option's), else the global fetch, looked up on each call rather than kept, so an interceptor
 * installed later (msw's, a test's stub) still sees every request.
 */
export const hostFetch = (holder: { fetch?: UpstreamFetch }): UpstreamFetch => holder.fetch ?? globalFetch;

const globalFetch: UpstreamFetch = (input, init) => fetch(input, init);

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
  fetch?: UpstreamFetch;
}

/** An answer with a success status, its body read in full. */
export interface UpstreamAnswer {
  status: number;
  headers: Headers;
  /** The body as text; "" when empty. */
  text: string;
}

/** Sends exchanges under the policy: one ky instance, made once per toolkit client. */
export interface Upstream {
  /**
   * Sends `exchange`, repeating it where that is safe, and reads the whole answer.
   * @throws ToolError for an error status (kind by status, the upstream's own message, the
   *   toolkit's advice, `retryAfterMs` on `rate_limited`), a timeout (the body's time included), a
   *   cancellation, an unreachable upstream or an answer cut off after its headers
   *   (`upstream_unavailable`), a success answer over `maxBytes` (`upstream_error`), or a redirect
   *   it may not follow (`upstream_error`: to another origin, of a request with a body, or past
   *   `maxRedirects`).
   */
  send(exchange: UpstreamExchange): Promise<UpstreamAnswer>;
}

/** Statuses whose answer may say when to come back (`Retry-After`, `ratelimit-reset`). */
const WAIT_STATUSES: ReadonlySet<number> = new Set([429, 503]);
// Whether a method may be repeated is the exchange's `idempotent`, asked in `shouldRetry`.
const ANY_METHOD = ["get", "head", "put", "delete", "post", "patch"];

/**
 * A ky instance for a retry policy. ky retries what its fetch throws as worth another attempt (an
 * attempt with no whole answer, an error answer the policy may ask again), waiting in its
 * `shouldRetry` for the policy's backoff or the answer's `Retry-After`; it times each attempt out
 * (`timeout`, covering the redirects and the body its fetch reads); and its beforeError hook turns
 * any other error answer into the ToolError thrown. Everything that differs by client (limits,
 * advice, the host's fetch) travels with each exchange (`Sending`), so one instance serves every
 * client: creating one per client would cost more than many a request. No afterResponse hook: ky
 * would copy every answer for it.
 */
async function kyFor(policy: RetryPolicy): Promise<KyInstance> {
  // Loaded on the first request: ky's module probes fetch's classes as it loads, which would load
  // Node's fetch implementation at every start, before anything is sent.
  const { default: ky } = await import("ky");
  return ky.create({
    timeout: DEFAULT_UPSTREAM_LIMITS.timeoutMs,
    fetch: answeringFetch,
    retry: {
      limit: policy.limit,
      methods: ANY_METHOD,
      // The wait happens in shouldRetry, which knows the answer and the caller's cancellation.
      delay: () => 0,
      shouldRetry: ({ error, retryCount }) => waitToRetry(error, retryCount - 1),
    },
    hooks: {
      beforeError: [
        ({ options: kyOptions, response }) => {
          const { exchange, client, text } = sendingOf(kyOptions);
          throw statusFailure(response, text, exchange, client.policy, client.advise);
        },
      ],
    },
  });
}

/**
 * Whether to try again after `error` (retry number `retries + 1`), having waited: after an error
 * answer (only those the policy may ask again reach here, see answeringFetch) its `Retry-After` or
 * `ratelimit-reset` on 429 and 503, never shorter than `backoffMs`, else the backoff; after an
 * attempt with no whole answer, the backoff, for a read only. Never past the policy's budget.
 * @throws an AbortError when the call is cancelled while waiting.
 */
async function waitToRetry(error: Error, retries: number): Promise<boolean> {
  if (!(error instanceof RetryableAttempt)) return false;
  const { sending, response } = error;
  const { policy } = sending.client;
  if (!response && !sending.exchange.idempotent) return false;
  const asked = response && WAIT_STATUSES.has(response.status) ? retryAfterMs(response.headers) : undefined;
  // `Retry-After: 0` (or a date gone by) would otherwise make every retry an immediate burst.
  const wait = asked === undefined ? backoff(policy, retries) : Math.max(asked, policy.backoffMs);
  // Without an answer, the next one may need the longest backoff after it.
  if (Date.now() - sending.started + (response ? wait : policy.maxBackoffMs) > policy.budgetMs) return false;
  await sleep(wait, undefined, { signal: sending.exchange.signal });
  return true;
}

/** The instance for the default policy, which every toolkit's client uses; made on first use. */
let defaultKy: Promise<KyInstance> | undefined;

/** The ky instance for `policy`: the shared one for the default policy. */
function instanceFor(policy: RetryPolicy): Promise<KyInstance> {
  if (policy !== DEFAULT_RETRY) return kyFor(policy);
  defaultKy ??= kyFor(DEFAULT_RETRY);
  return defaultKy;
}

/**
 * Sends exchanges under the policy `options` sets; cheap to make (it makes no ky instance unless
 * `options.retry` is not the default policy), so a client may be made per call.
 */
export function createUpstream(options: UpstreamOptions = {}): Upstream {
  const policy = options.retry ?? DEFAULT_RETRY;
  const api = instanceFor(policy);
  const client: SendingClient = {
    policy,
    // Each limit left out (or undefined) takes its default.
    limits: {
      timeoutMs: options.timeoutMs ?? DEFAULT_UPSTREAM_LIMITS.timeoutMs,
      maxBytes: options.maxBytes ?? DEFAULT_UPSTREAM_LIMITS.maxBytes,
      maxRedirects: options.maxRedirects ?? DEFAULT_UPSTREAM_LIMITS.maxRedirects,
    },
    advise: options.advise,
    fetch: hostFetch(options),
  };
  const timeout =
    client.limits.timeoutMs === DEFAULT_UPSTREAM_LIMITS.timeoutMs ? {} : { timeout: client.limits.timeoutMs };
  return {
    async send(exchange) {
      const sending: Sending = { exchange, client, started: Date.now(), answered: false, text: "", sent: 0 };
      // `sending` is no option of ky's: ky hands it to the hooks and to its fetch as it is, and its
      // fetch sends the exchange's headers and body. Given to ky, they would be copied into its
      // Request and that Request's clone on every attempt; the caller's signal would be combined
      // with ky's own on every request (its fetch and its waits heed it instead).
      const init: Options & { sending: Sending } = { method: exchange.method, sending, ...timeout };
      try {
        const response = await (await api)(exchange.url, init);
        return { status: response.status, headers: response.headers, text: sending.text };
      } catch (error) {
        if (!(error instanceof RetryableAttempt && error.response) || exchange.signal?.aborted)
          throw unansweredFailure(error, sending);
        throw statusFailure(error.response, sending.text, exchange, policy, options.advise);
      }
    },
  };
}

/**
 * Sends one exchange under the policy: `createUpstream(options).send(exchange)`. A client sending
 * many makes its Upstream once instead.
 * @throws ToolError as `Upstream.send`.
 */
export function sendUpstream(
  exchange: UpstreamExchange,
  options: UpstreamOptions = {},
): Promise<UpstreamAnswer> {
  return createUpstream(options).send(exchange);
}

// ky keeps the options it does not know among the options its hooks get.
const sendingOf = (options: NormalizedOptions): Sending =>
  (options as unknown as { sending: Sending }).sending;

/** The wait before retry number `retries + 1`, in milliseconds: exponential, with full jitter. */
const backoff = (policy: RetryPolicy, retries: number): number =>
  Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** retries) * Math.random();
