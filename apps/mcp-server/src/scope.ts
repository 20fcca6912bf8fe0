import { getUiCapability, RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/server";
import type { AuthInfo, ClientCapabilities, ServerContext } from "@modelcontextprotocol/server";
import { followSignals } from "@toolkits/core";
import {
  type Era,
  type InboundMessage,
  type McpCallScope,
  type MessageId,
  type ToolRegistry,
  type UrlElicitationForm,
  urlElicitationOf,
  writeMeta,
} from "@toolkits/core/mcp";
import { type AppsClient, appsView, type View, within } from "./views.js";

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

/** A signal made for one call, and its abort (an AbortController is one). */
export type CallController = Pick<AbortController, "signal" | "abort">;

/**
 * Everything about one request besides its message, built once by `requestScope` for the
 * transport that received it, and read by dispatch, by the SDK's handlers (see `carryScope`) and,
 * as core's call scope (`callScope`), by every tool call the request carries.
 */
export interface RequestScope {
  caller: Caller;
  era: Era;
  /** Aborted when the client goes away, the request times out or the server stops. */
  readonly signal: AbortSignal;
  /** The transport's own controller for the tool call `id`, aborted by its cancellation and the request's end. */
  call(id: MessageId): CallController | undefined;
  /** How the client takes a URL elicitation; looked up only when a call needs the caller to connect. */
  urlElicitation(): UrlElicitationForm | undefined | Promise<UrlElicitationForm | undefined>;
  /** Which tools the request may see and call (see views.ts). */
  view: View;
  /**
   * Runs `fn` within the request's telemetry context (its span active), when telemetry is on: the
   * SDK may run a request's handler in a context of its own making (see `scopedRegistry`).
   */
  within?<R>(fn: () => R): R;
}

/** What the transport knows of a request besides its message. */
export interface TransportFacts {
  caller: Caller;
  /** The request's signal, made only when read (a fast-path call uses its own). */
  signal(): AbortSignal;
  call?(id: MessageId): CallController | undefined;
  /** The era of a connection, which its first message decides for all that follow (stdio). */
  era?: Era;
  /**
   * What a legacy client declared at `initialize`: `known` where the transport kept it (stdio's
   * connection), else `recall`ed on demand where something remembers it (per-user HTTP: the store).
   */
  initialized:
    | { known: ClientCapabilities | undefined }
    | { recall(): Promise<ClientCapabilities | undefined> };
  /** The URL's view, narrowed by what the caller's token allows. */
  view: View;
  /** `--apps on`: MCP Apps views for the clients that take them. */
  apps: boolean;
  /** The request's telemetry context, when telemetry is on (`RequestScope.within`). */
  within?<R>(fn: () => R): R;
}

/**
 * The one scope builder, for both transports and both paths: the request's era (the message's, or
 * its connection's), its URL-elicitation form (core's rule) and its view with MCP Apps as the
 * client takes them. `message` is the request's one message; a batch (`undefined`) is legacy.
 */
export function requestScope(message: InboundMessage | undefined, facts: TransportFacts): RequestScope {
  const era = facts.era ?? message?.era ?? "legacy";
  const known = "known" in facts.initialized ? facts.initialized.known : undefined;
  const urlElicitation = (): UrlElicitationForm | undefined | Promise<UrlElicitationForm | undefined> => {
    if (!message) return undefined;
    if (era === "modern" || "known" in facts.initialized) return urlElicitationOf(message, known, era);
    return facts.initialized.recall().then((recalled) => urlElicitationOf(message, recalled, era));
  };
  const declared = era === "modern" ? message?.capabilities : known;
  const apps = facts.apps ? appsOf(era, declared, "known" in facts.initialized) : undefined;
  return new BuiltScope(facts, era, urlElicitation, within(facts.view, appsView(apps)));
}

/**
 * A request's scope as `requestScope` builds it. A class, not an object literal: a literal's own
 * `get signal()` gives every scope a shape of its own, which measured about a microsecond a request
 * to build and left each reader of a scope's fields looking through many shapes.
 */
class BuiltScope implements RequestScope {
  readonly caller: Caller;
  readonly within: RequestScope["within"];
  readonly #facts: TransportFacts;

  constructor(
    facts: TransportFacts,
    readonly era: Era,
    readonly urlElicitation: RequestScope["urlElicitation"],
    readonly view: View,
  ) {
    this.#facts = facts;
    this.caller = facts.caller;
    this.within = facts.within;
  }

  get signal(): AbortSignal {
    return this.#facts.signal();
  }

  call(id: MessageId): CallController | undefined {
    return this.#facts.call?.(id);
  }
}

/**
 * `registry` for the SDK's handlers of `request`: its tool calls run within the request's
 * telemetry context, so what they send is the request's span's child whatever context the SDK
 * runs its handler in (its stdio entry's is the connection's first message's). The registry
 * itself when telemetry is off.
 */
export function scopedRegistry(registry: ToolRegistry, request: RequestScope): ToolRegistry {
  const run = request.within;
  if (!run) return registry;
  return { ...registry, call: (name, args, scope) => run(() => registry.call(name, args, scope)) };
}

/**
 * The one rule for whether a client takes MCP Apps views: it declared the extension (ext-apps'
 * `getUiCapability`) with our MIME type, or no MIME type at all (`declared`); it declared
 * capabilities without it (known not to: undefined); or nobody knows what it declared (`unknown`:
 * a stateless legacy request, whose `initialize` went elsewhere, or a modern one without capabilities).
 */
function appsOf(era: Era, declared: ClientCapabilities | undefined, known: boolean): AppsClient | undefined {
  if (!declared) return era === "legacy" && known ? undefined : "unknown";
  const ui = getUiCapability(declared) as { mimeTypes?: unknown } | undefined;
  if (!ui) return undefined;
  return !Array.isArray(ui.mimeTypes) || ui.mimeTypes.includes(RESOURCE_MIME_TYPE) ? "declared" : undefined;
}

/**
 * Core's scope of one tool call of `request`: its own controller (the transport's) when there is
 * one, following the SDK's signal for the call when the SDK serves it; the caller, the
 * URL-elicitation form and the progress sink. Every source followed lives only as long as the call.
 */
export function callScope(
  request: RequestScope,
  call: { id?: MessageId; signal?: AbortSignal; progress?: McpCallScope["progress"] },
): McpCallScope {
  const own = call.id === undefined ? undefined : request.call(call.id);
  const base = own?.signal ?? request.signal;
  return {
    requestId: call.id,
    signal: call.signal ? followSignals(base, call.signal).signal : base,
    abort: own && ((reason) => own.abort(reason)),
    principal: request.caller.principal,
    urlElicitation: request.urlElicitation,
    progress: call.progress,
  };
}

/**
 * Where a request's scope rides to the SDK's handlers: in the authentication facts the HTTP
 * handler passes through (`extra`), and over stdio, whose entry passes nothing beside a message, in
 * the request's own `_meta`. The transport writes it on every request it hands over, so no value a
 * client sent under this key survives.
 */
const SCOPE_KEY = "io.github.agent-toolkits/scope";

/** `authInfo` (or anonymous facts) carrying `scope` to the SDK's HTTP handler (see `carriedScope`). */
export function withScope(authInfo: AuthInfo | undefined, scope: RequestScope): AuthInfo {
  const facts = authInfo ?? { token: "", clientId: "", scopes: [] };
  return { ...facts, extra: { ...facts.extra, [SCOPE_KEY]: scope } };
}

/** Writes `scope` into a request message's own `_meta` (over stdio), replacing anything sent under its key. */
export const carryScope = (message: unknown, scope: RequestScope): void =>
  writeMeta(message, SCOPE_KEY, scope);

/**
 * The scope its transport gave a request the SDK serves (see `withScope`, `carryScope`).
 * @throws Error when there is none: a request reached the SDK other than through a transport here.
 */
export const carriedScope = (ctx: Pick<ServerContext, "http" | "mcpReq">): RequestScope =>
  scopeIn(ctx.http?.authInfo?.extra ?? ctx.mcpReq._meta);

/** The scope of a request the SDK's HTTP entry makes a server for, from its authentication facts. */
export const scopeOfAuth = (authInfo: AuthInfo | undefined): RequestScope => scopeIn(authInfo?.extra);

function scopeIn(carrier: Record<string, unknown> | undefined): RequestScope {
  const scope = carrier?.[SCOPE_KEY];
  if (!scope) throw new Error("A request reached the SDK without its scope.");
  return scope as RequestScope;
}
