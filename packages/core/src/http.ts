import { type ErrorKind, kindForStatus, ToolError, upstreamMessage } from "./errors.js";

export type HttpMethod = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE";
export type QueryValue = string | number | boolean;

/** One upstream request. */
export interface HttpRequest {
  method: HttpMethod;
  /** Path template relative to the base URL, with `{name}` placeholders: `/incidents/{id}`. */
  path: string;
  /** Values for the placeholders; each is percent-encoded as one path segment. */
  pathParams?: Readonly<Record<string, string | number>>;
  /** Query parameters; an array repeats its name (`statuses[]=a&statuses[]=b`); undefined is skipped. */
  query?: Readonly<Record<string, QueryValue | readonly QueryValue[] | undefined>>;
  /** JSON request body. */
  body?: unknown;
  headers?: Readonly<Record<string, string>>;
  /**
   * Whether sending the request twice is harmless. Defaults to true for GET, HEAD, PUT and DELETE,
   * false for POST and PATCH. Non-idempotent requests are retried only on 429 (refused, so not run).
   */
  idempotent?: boolean;
  signal?: AbortSignal;
}

export interface HttpResponse<T = unknown> {
  status: number;
  /** Parsed JSON body; undefined for an empty body (e.g. 204). */
  data: T | undefined;
  headers: Headers;
}

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

/** Facts about a failed upstream response, for toolkit-specific advice. */
export interface FailureInfo {
  status: number;
  kind: ErrorKind;
  /** The upstream's own message, redacted; may be "". */
  upstream: string;
  request: HttpRequest;
}

export interface HttpClientOptions {
  /** Base URL without a trailing slash, e.g. `https://api.pagerduty.com`. */
  baseUrl: string;
  /** Produces the `Authorization` header value per request. */
  authorization?: () => string | Promise<string>;
  /** Headers sent with every request. */
  headers?: Readonly<Record<string, string>>;
  /** Per-attempt timeout in milliseconds (default 30 000). */
  timeoutMs?: number;
  retry?: RetryPolicy;
  /** Toolkit advice appended to an error message (e.g. "check PAGER_REGION"). */
  advise?: (failure: FailureInfo) => string | undefined;
  fetch?: typeof fetch;
}

/** A JSON HTTP client with retries, timeouts and failures mapped to ToolError. */
export interface HttpClient {
  /**
   * Sends `request` and parses the JSON answer.
   * @throws ToolError `invalid_input` for a bad path parameter (nothing is sent); otherwise the kind
   *   of the upstream failure (`not_found`, `rate_limited` with `retryAfterMs`, `timeout`, …).
   */
  request<T = unknown>(request: HttpRequest): Promise<HttpResponse<T>>;
}

const IDEMPOTENT_METHODS: ReadonlySet<HttpMethod> = new Set(["GET", "HEAD", "PUT", "DELETE"]);
const RETRY_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);
/** Statuses whose answer may say when to come back (`Retry-After`, `ratelimit-reset`). */
const WAIT_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** Creates an HttpClient for one upstream. Cheap: build one per call when credentials vary. */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  const policy = options.retry ?? DEFAULT_RETRY;
  const base = options.baseUrl.replace(/\/+$/, "");
  const send = options.fetch ?? ((input, init) => fetch(input, init));
  return {
    async request<T>(request: HttpRequest): Promise<HttpResponse<T>> {
      const url = base + expandPath(request.path, request.pathParams ?? {}) + queryString(request.query);
      const idempotent = request.idempotent ?? IDEMPOTENT_METHODS.has(request.method);
      assertSendableHeaders(request.headers ?? {});
      const headers: Record<string, string> = {
        accept: "application/json",
        ...options.headers,
        ...request.headers,
      };
      if (options.authorization) headers.authorization = await options.authorization();
      if (request.body !== undefined) headers["content-type"] = "application/json";
      const body = request.body === undefined ? undefined : JSON.stringify(request.body);
      const exchange = (signal: AbortSignal) => send(url, { method: request.method, headers, body, signal });
      const started = Date.now();
      for (let attempt = 0; ; attempt++) {
        const outcome = await attemptOnce(exchange, request.signal, options.timeoutMs ?? 30_000);
        const wait = nextWait(outcome, { attempt, idempotent, policy, elapsedMs: Date.now() - started });
        if (wait === undefined) return settle<T>(outcome, request, idempotent, policy, options.advise);
        await sleep(wait, request.signal).catch((error: unknown) => {
          throw networkFailure({ error, timedOut: false }, request, idempotent);
        });
      }
    },
  };
}

/** What one attempt came to: an answer (its body read), or the error that stopped it. */
type Attempt = { response: Response; text: string } | { error: unknown; timedOut: boolean };

/**
 * Sends once and reads the whole answer within `timeoutMs`. The caller's signal aborts it too;
 * a refused or cut connection comes back as `{ error }`, never thrown.
 */
async function attemptOnce(
  exchange: (signal: AbortSignal) => Promise<Response>,
  callerSignal: AbortSignal | undefined,
  timeoutMs: number,
): Promise<Attempt> {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutMs);
  const signal = callerSignal ? AbortSignal.any([callerSignal, timeout.signal]) : timeout.signal;
  try {
    const response = await exchange(signal);
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
 * How long to wait before trying again, in milliseconds, or undefined to stop. Only idempotent
 * requests are repeated after a failure, since the first may have been carried out; a 429 was
 * refused, so any request may be. Waits follow `Retry-After`/`ratelimit-reset` on 429 and 503,
 * else exponential backoff with full jitter, and never beyond the policy's budget.
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

/** The final answer as a response, or the ToolError the caller should see. */
function settle<T>(
  outcome: Attempt,
  request: HttpRequest,
  idempotent: boolean,
  policy: RetryPolicy,
  advise: HttpClientOptions["advise"],
): HttpResponse<T> {
  if ("error" in outcome) throw networkFailure(outcome, request, idempotent);
  const { response, text } = outcome;
  if (!response.ok) throw statusFailure(response, text, request, idempotent, policy, advise);
  return {
    status: response.status,
    data: parseBody<T>(response.status, text, idempotent),
    headers: response.headers,
  };
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

const DOT_SEGMENT = /^\.{1,2}$/;

/**
 * Fills `{name}` placeholders with percent-encoded values. A value can never add a path segment
 * (`a/b` → `a%2Fb`) or end the path (`?`, `#`).
 * @throws ToolError `invalid_input` for a missing or empty value, or one that is `.` or `..`
 *   (URLs resolve those as dot segments, so they cannot be sent safely).
 */
export function expandPath(template: string, params: Readonly<Record<string, string | number>>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name];
    const text = value === undefined ? "" : String(value);
    if (!text.trim()) {
      throw new ToolError("invalid_input", `Path parameter ${name} must be a non-empty value.`);
    }
    if (DOT_SEGMENT.test(text)) {
      throw new ToolError(
        "invalid_input",
        `Path parameter ${name} cannot be "${text}": give an actual identifier.`,
      );
    }
    return encodeURIComponent(text);
  });
}

/** Whether fetch can send `value` as a header: Latin-1 without NUL, CR or LF. */
export const isSendableHeaderValue = (value: string): boolean => /^[^\0\r\n\u0100-\uffff]*$/.test(value);

/**
 * @throws ToolError `invalid_input` naming a request header whose value fetch would refuse, so the
 * refusal is not mistaken for a network failure (nothing is sent).
 */
function assertSendableHeaders(headers: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(headers)) {
    if (!isSendableHeaderValue(value)) {
      throw new ToolError(
        "invalid_input",
        `The ${name} header cannot carry ${JSON.stringify(value)}: use Latin-1 characters without line breaks.`,
      );
    }
  }
}

function queryString(query: HttpRequest["query"]): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) params.append(name, String(item));
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

function parseBody<T>(status: number, text: string, idempotent: boolean): T | undefined {
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    const outcome = idempotent
      ? ""
      : " The request itself may have been carried out; check before repeating it.";
    throw new ToolError(
      "upstream_error",
      `The upstream answered HTTP ${status} with a body that is not JSON: ${upstreamMessage(text)}.${outcome}`,
      { status, retryable: idempotent },
    );
  }
}

const NOT_REPEATED =
  " The request may have reached the upstream, so it was not repeated (that could do it twice). Check whether it took effect before calling again.";

/**
 * An upstream error answer as a ToolError. The original request is never kept as `cause`: it holds
 * the Authorization header, and a logged cause would leak it.
 */
function statusFailure(
  response: Response,
  text: string,
  request: HttpRequest,
  idempotent: boolean,
  policy: RetryPolicy,
  advise: HttpClientOptions["advise"],
): ToolError {
  const { status, headers } = response;
  const kind = kindForStatus(status);
  const upstream = upstreamMessage(text);
  const advice = advise?.({ status, kind, upstream, request });
  const unknownOutcome = !idempotent && status >= 500 ? NOT_REPEATED : "";
  const said = upstream ? `: ${upstream}${/[.!?]$/.test(upstream) ? "" : "."}` : ".";
  const message = `${request.method} ${request.path} failed with HTTP ${status}${said}${advice ? ` ${advice}` : ""}${unknownOutcome}`;
  const retryAfter = kind === "rate_limited" ? (retryAfterMs(headers) ?? policy.maxBackoffMs) : undefined;
  const retryable = kind === "rate_limited" || (idempotent && RETRY_STATUSES.has(status));
  return new ToolError(kind, message, { status, retryAfterMs: retryAfter, retryable });
}

/** A request that got no (whole) answer, as a ToolError: cancelled, timed out or unreachable. */
function networkFailure(
  outcome: { error: unknown; timedOut: boolean },
  request: HttpRequest,
  idempotent: boolean,
): ToolError {
  const { error, timedOut } = outcome;
  if (error instanceof ToolError) return error;
  // A cancelled call's fetch rejects with whatever reason the caller gave, not always an AbortError.
  if (request.signal?.aborted) {
    return new ToolError("timeout", `${request.method} ${request.path} was cancelled.`, { retryable: false });
  }
  if (timedOut) {
    const notRepeated = idempotent ? "" : NOT_REPEATED;
    return new ToolError("timeout", `${request.method} ${request.path} timed out.${notRepeated}`, {
      retryable: idempotent,
    });
  }
  const reason =
    error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : "";
  return new ToolError(
    "upstream_unavailable",
    `${request.method} ${request.path} could not reach the upstream${reason ? ` (${reason})` : ""}.${idempotent ? "" : NOT_REPEATED}`,
    { retryable: idempotent },
  );
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && error.name === "AbortError";
}
