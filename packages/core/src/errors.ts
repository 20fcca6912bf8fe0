import { redact } from "./secrets.js";

/** What went wrong, in terms a model can act on. */
export type ErrorKind =
  | "invalid_input"
  | "unauthenticated"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "rate_limited"
  | "upstream_error"
  | "upstream_unavailable"
  | "timeout"
  /** Something this server itself depends on (its credential store, say) is out of reach for now. */
  | "unavailable"
  /** The caller cancelled the call before it finished. */
  | "cancelled";

/**
 * Where the calling person connects an account a call needs (a server acting for many people asks
 * each to connect their own): a page of the server, opened in a browser. The call answers with it
 * as a URL elicitation where the client takes one, else as an error whose message carries it.
 */
export interface ConnectLink {
  /** The page, with a single-use code in it. */
  url: string;
  /** Unique per link, for clients that track elicitations (2025-11-25 `elicitationId`). */
  id: string;
  /** What the person is asked, e.g. "Connect your PagerDuty account to continue." */
  message: string;
}

export interface ToolErrorOptions {
  /** Whether the same call may succeed if repeated unchanged. Defaults by kind. */
  retryable?: boolean;
  /** How long to wait before retrying, in milliseconds. */
  retryAfterMs?: number;
  /** HTTP status of the upstream response, when there was one. */
  status?: number;
  cause?: unknown;
  /**
   * Where the caller connects the account a call needs (kind `unauthenticated`), or connects it
   * again to grant a permission it lacks (`forbidden`).
   */
  connect?: ConnectLink;
}

/** Longest wait `toText` states in seconds, in milliseconds (an hour). */
const MAX_STATED_WAIT_MS = 3_600_000;

const RETRYABLE_KINDS: ReadonlySet<ErrorKind> = new Set([
  "rate_limited",
  "upstream_unavailable",
  "timeout",
  "unavailable",
]);

/**
 * The one error type every tool throws. The message is what a model reads: it names the cause,
 * quotes the upstream's own message and says what to do next. Known secret values are redacted
 * from it at construction.
 */
export class ToolError extends Error {
  override readonly name = "ToolError";
  readonly kind: ErrorKind;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly status: number | undefined;
  readonly connect: ConnectLink | undefined;

  constructor(kind: ErrorKind, message: string, options: ToolErrorOptions = {}) {
    super(redact(message), options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.retryable = options.retryable ?? RETRYABLE_KINDS.has(kind);
    this.retryAfterMs = options.retryAfterMs;
    this.status = options.status;
    this.connect = options.connect;
  }

  /**
   * The error as the model sees it: kind, message and when to retry. A wait over an hour (a
   * `Retry-After` date years ahead, say) reads "Retry later", not an absurd count of seconds.
   */
  toText(): string {
    const wait = this.retryAfterMs;
    const retry =
      wait === undefined
        ? this.retryable
          ? " Retrying later may succeed."
          : ""
        : wait > MAX_STATED_WAIT_MS
          ? " Retry later: the upstream asked for a wait of over an hour."
          : ` Retry after ${Math.max(1, Math.ceil(wait / 1000))} s.`;
    return `${this.kind}: ${this.message}${retry}`;
  }
}

/** Wraps anything thrown into a ToolError; unknown errors become upstream_error with a redacted message. */
export function toToolError(error: unknown): ToolError {
  if (error instanceof ToolError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ToolError("upstream_error", `Unexpected failure: ${message}`, { cause: error });
}

/** The error kind an upstream HTTP status maps to. */
export function kindForStatus(status: number): ErrorKind {
  if (status === 400 || status === 413 || status === 422) return "invalid_input";
  if (status === 401) return "unauthenticated";
  if (status === 402 || status === 403) return "forbidden";
  if (status === 404 || status === 410) return "not_found";
  if (status === 409 || status === 412) return "conflict";
  if (status === 429) return "rate_limited";
  if (status === 408 || status === 504) return "timeout";
  if (status === 502 || status === 503) return "upstream_unavailable";
  return "upstream_error";
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

const MAX_UPSTREAM_TEXT = 500;

/**
 * Pulls the human-readable message out of an upstream error body. Understands the shapes our
 * upstreams use: `{error:{message, errors:[…]}}` (PagerDuty, Google), `{error:"…"}`, `{message}`,
 * `{meta:{error}}` and `{meta:{errors:[…]}}` (Customer.io), and JSON:API `{errors:[{detail, source}]}`.
 * Falls back to the raw text, tags stripped and cut to 500 characters. Returns "" for an empty body.
 */
export function upstreamMessage(body: string): string {
  const text = body.trim();
  if (!text) return "";
  try {
    const found = messageFromJson(JSON.parse(text));
    if (found) return clip(found);
  } catch {
    // not JSON: fall through to the raw text
  }
  const plain = text.startsWith("<") ? htmlText(text) : text;
  return clip(plain);
}

function messageFromJson(body: unknown): string | undefined {
  if (typeof body === "string") return body;
  if (!isRecord(body)) return undefined;
  const parts: string[] = [];
  const error = body.error;
  if (typeof error === "string") parts.push(error);
  if (isRecord(error)) {
    if (typeof error.message === "string") parts.push(error.message);
    parts.push(...listMessages(error.errors));
  }
  if (typeof body.message === "string") parts.push(body.message);
  if (isRecord(body.meta)) {
    if (typeof body.meta.error === "string") parts.push(body.meta.error);
    parts.push(...listMessages(body.meta.errors));
  }
  parts.push(...listMessages(body.errors));
  const unique = [...new Set(parts.filter(Boolean))];
  return unique.length ? unique.join("; ") : undefined;
}

function listMessages(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((item) => {
    if (typeof item === "string") return [item];
    if (!isRecord(item)) return [];
    const text = [item.detail, item.message, item.title, item.reason].find((v) => typeof v === "string");
    if (typeof text !== "string") return [];
    const pointer = isRecord(item.source) ? item.source.pointer : undefined;
    return [typeof pointer === "string" ? `${text} (at ${pointer})` : text];
  });
}

function htmlText(html: string): string {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(html)?.[1]?.trim();
  const body = html
    .replace(/<(head|script|style)[\s\S]*?<\/\1>/gi, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return title && !body.startsWith(title) ? `${title}: ${body}` : body || "HTML error page";
}

function clip(text: string): string {
  const one = redact(text);
  return one.length > MAX_UPSTREAM_TEXT ? `${one.slice(0, MAX_UPSTREAM_TEXT)}…` : one;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
