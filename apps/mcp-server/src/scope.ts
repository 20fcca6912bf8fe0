import type { ClientCapabilities } from "@modelcontextprotocol/server";
import { UI_EXTENSION, VIEW_MIME_TYPE } from "@toolkits/apps";
import { type McpCallScope, type UrlElicitationForm, urlElicitationFor } from "@toolkits/core/mcp";
import type { AppsClient, View } from "./views.js";

/** Who is calling, as the transport's authentication decided it (see http/guards/auth.ts). */
export interface Caller {
  /** The person, in the host's terms (`<iss>#<sub>`, `token:<name>`); undefined when anonymous. */
  principal?: string;
  /** The OAuth client the token was issued to, when known. */
  clientId?: string;
  /** A stable digest of the credential, keying this caller's calls in flight; "" when anonymous. */
  key: string;
}

/** The anonymous caller: loopback without authentication, or stdio's one local user. */
export const ANONYMOUS: Caller = { key: "" };

/** The protocol era of a request: `modern` is 2026-07-28, `legacy` the 2025 revisions. */
export type Era = "modern" | "legacy";

/** The revisions served with per-request envelopes (2026-07-28), by their `protocolVersion`. */
export const MODERN_REVISIONS: readonly string[] = ["2026-07-28"];

/**
 * Everything about one request besides its message, built once by the transport that received it
 * and read by dispatch and by every tool call the request carries.
 */
export interface RequestScope {
  caller: Caller;
  era: Era;
  /** The revision the request names (2026-07-28 in its envelope; a 2025 one in a header or at initialize). */
  revision: string | undefined;
  /** Aborted when the client goes away, the request times out or the server stops. */
  signal: AbortSignal;
  /** How the client takes a URL elicitation; looked up only when a call needs the caller to connect. */
  urlElicitation(): UrlElicitationForm | undefined | Promise<UrlElicitationForm | undefined>;
  /** Which tools the request may see and call (see views.ts). */
  view: View;
}

/** A request's `params._meta`, when it is an object. */
export const metaOf = (params: unknown): Record<string, unknown> | undefined => {
  const meta = (params as { _meta?: unknown } | undefined)?._meta;
  return typeof meta === "object" && meta !== null && !Array.isArray(meta)
    ? (meta as Record<string, unknown>)
    : undefined;
};

const PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
/** The key of the connect request in an input-required result; a retry answers under it. */
const CONNECT_INPUT = "connect";

/**
 * The one rule for a request's era, as the SDK routes it: a message carrying a 2026-07-28 envelope
 * is modern, anything else (a 2025 `initialize`, a message without an envelope) legacy. Over stdio
 * the connection's first message decides for all that follow.
 */
export function eraOf(params: unknown): Era {
  const revision = envelopeRevision(params);
  return revision !== undefined && MODERN_REVISIONS.includes(revision) ? "modern" : "legacy";
}

/** The protocol version a request's envelope claims, when it carries one (2026-07-28's `_meta`). */
export const envelopeRevision = (params: unknown): string | undefined => {
  const claimed = metaOf(params)?.[PROTOCOL_VERSION];
  return typeof claimed === "string" ? claimed : undefined;
};

/**
 * The URL-elicitation form of a request: a modern request declares its capabilities in its envelope
 * (and a retry already answering the connect request is not asked again); a legacy client declared
 * them at `initialize`, which `initialized` looks up (the connection's, or what the store remembers).
 */
export function elicitationOf(
  era: Era,
  params: unknown,
  initialized: () => ClientCapabilities | undefined | Promise<ClientCapabilities | undefined>,
): RequestScope["urlElicitation"] {
  if (era === "modern") {
    const capabilities = metaOf(params)?.[CLIENT_CAPABILITIES] as ClientCapabilities | undefined;
    const responses = (params as { inputResponses?: Record<string, unknown> } | undefined)?.inputResponses;
    const form = urlElicitationFor({ era, capabilities, answered: responses?.[CONNECT_INPUT] !== undefined });
    return () => form;
  }
  return async () => urlElicitationFor({ era, capabilities: await initialized() });
}

/**
 * The one rule for whether a request's client takes MCP Apps views: a modern request says in its
 * envelope's capabilities (`declared`, else known not to: undefined); a legacy client said at
 * `initialize`, when the transport kept it (`known`: stdio's connection); a stateless legacy
 * request, whose `initialize` went elsewhere, is `unknown`, as is a modern one without capabilities.
 */
export function appsOf(
  era: Era,
  params: unknown,
  initialized: ClientCapabilities | undefined,
  known: boolean,
): AppsClient | undefined {
  const capabilities =
    era === "modern"
      ? (metaOf(params)?.[CLIENT_CAPABILITIES] as ClientCapabilities | undefined)
      : initialized;
  if (!capabilities) return era === "legacy" && known ? undefined : "unknown";
  const ui = capabilities.extensions?.[UI_EXTENSION] as { mimeTypes?: unknown } | undefined;
  if (!ui) return undefined;
  // A client naming MIME types renders only those; one naming none takes the extension's one.
  return !Array.isArray(ui.mimeTypes) || ui.mimeTypes.includes(VIEW_MIME_TYPE) ? "declared" : undefined;
}

/** The scope of one tool call of `request`: its id, a signal also stopped by `stop`, and its progress sink. */
export function callScopeOf(
  request: RequestScope,
  call: { id?: string | number; signal?: AbortSignal; progress?: McpCallScope["progress"] },
): McpCallScope {
  const signal = call.signal ? AbortSignal.any([request.signal, call.signal]) : request.signal;
  return {
    requestId: call.id,
    signal,
    principal: request.caller.principal,
    urlElicitation: request.urlElicitation,
    progress: call.progress,
  };
}
