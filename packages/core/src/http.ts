import { ToolError, upstreamMessage } from "./errors.js";
import type { RateBudget } from "./tool.js";
import { createUpstream, type UpstreamOptions } from "./upstream.js";

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
  /** The rate budget it counts against, in place of the client's `budget`. */
  budget?: RateBudget;
  /** Advice on its failures, in place of the client's `advise`. */
  advise?: UpstreamOptions["advise"];
}

export interface HttpResponse<T = unknown> {
  status: number;
  /** Parsed JSON body; undefined for an empty body (e.g. 204). */
  data: T | undefined;
  headers: Headers;
}

/** Where and how to reach one upstream; retries, limits (time, answer size, redirects), advice and fetch as `UpstreamOptions`. */
export interface HttpClientOptions extends UpstreamOptions {
  /** Base URL without a trailing slash, e.g. `https://api.pagerduty.com`. */
  baseUrl: string;
  /** Produces the `Authorization` header value per request. */
  authorization?: () => string | Promise<string>;
  /** Headers sent with every request. */
  headers?: Readonly<Record<string, string>>;
  /** The rate budget every request counts against, unless it names its own (see `UpstreamInit`). */
  budget?: RateBudget;
}

/** A JSON HTTP client with retries, timeouts and failures mapped to ToolError. */
export interface HttpClient {
  /**
   * Sends `request` and parses the JSON answer.
   * @throws ToolError `invalid_input` for a bad path parameter (nothing is sent); otherwise the kind
   *   of the upstream failure (`not_found`, `rate_limited` with `retryAfterMs`, `timeout`, …), as
   *   `Upstream.send` throws them (answers cut off, too large, or redirected included).
   */
  request<T = unknown>(request: HttpRequest): Promise<HttpResponse<T>>;
}

const IDEMPOTENT_METHODS: ReadonlySet<HttpMethod> = new Set(["GET", "HEAD", "PUT", "DELETE"]);

/**
 * Creates an HttpClient for one upstream, sending through core's upstream policy (one
 * `createUpstream` for all its requests). Cheap: build one per call when credentials vary.
 */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  const base = options.baseUrl.replace(/\/+$/, "");
  // The base URL's own path leads every request's template (`/v2` + `/incidents/{id}`).
  const basePath = URL.parse(base)?.pathname.replace(/\/+$/, "") ?? "";
  const upstream = createUpstream(options);
  const common = { accept: "application/json", ...options.headers };
  return {
    async request<T>(request: HttpRequest): Promise<HttpResponse<T>> {
      const url = base + expandPath(request.path, request.pathParams ?? {}) + queryString(request.query);
      const idempotent = request.idempotent ?? IDEMPOTENT_METHODS.has(request.method);
      assertSendableHeaders(request.headers ?? {});
      const headers: Record<string, string> = { ...common, ...request.headers };
      if (options.authorization) headers.authorization = await options.authorization();
      if (request.body !== undefined) headers["content-type"] = "application/json";
      const { method, path, signal } = request;
      const exchange = {
        method,
        url,
        headers,
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        idempotent,
        signal,
        target: path,
        template: basePath + path,
        params: request.pathParams,
        label: `${method} ${path}`,
        budget: request.budget ?? options.budget,
        advise: request.advise,
      };
      const answer = await upstream.send(exchange);
      return {
        status: answer.status,
        data: parseJson<T>(answer.status, answer.text, idempotent),
        headers: answer.headers,
      };
    },
  };
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

/**
 * The answer's JSON, or undefined for an empty body.
 * @throws ToolError `upstream_error` for a body that is not JSON.
 */
function parseJson<T>(status: number, text: string, idempotent: boolean): T | undefined {
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
