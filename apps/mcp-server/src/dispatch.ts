import { classifyInboundRequest, type Implementation, ProtocolError } from "@modelcontextprotocol/server";
import { jsonText } from "@toolkits/core";
import type { McpCallScope, ToolRegistry } from "@toolkits/core/mcp";
import { MODERN_REVISIONS, metaOf, type RequestScope } from "./scope.js";
import type { View } from "./views.js";

/** The HTTP request headers the fast path reads; absent over stdio. */
export interface CallHeaders {
  accept?: string;
  "mcp-protocol-version"?: string;
  "mcp-method"?: string;
  "mcp-name"?: string;
}

/** How a transport answers: by the SDK, or with the fast path's JSON-RPC response. */
export interface Answering<R> {
  sdk(): Promise<R>;
  /** Writes the fast path's answer: one JSON-RPC response, serialized. */
  reply(response: string): R | Promise<R>;
  /**
   * The call's own controller, when the transport tracks calls itself: a cancellation aborts it,
   * and so must the end of the request. A failed call aborts it too (`CallScope.abort`).
   */
  call?(id: string | number): CallController | undefined;
}

/** A signal made for one call, and its abort (an AbortController is one). */
export type CallController = Pick<AbortController, "signal" | "abort">;

/** A tool call the fast path answers. */
interface PlainCall {
  id: string | number;
  name: string;
  arguments: unknown;
}

/** The 2025 revisions; a legacy request names one of them in its header, or none. */
const LEGACY_REVISIONS = ["2025-11-25", "2025-06-18", "2025-03-26"];

/**
 * The one place that decides how a request is answered. The commonest request of all, a single
 * `tools/call` asking for no progress, is answered straight from the registry, with exactly what the
 * SDK would have answered: building the SDK's per-request server, transport and web-standard
 * objects costs more than the call itself. Everything else goes to the SDK, including every request
 * the SDK would refuse, so its validation (envelope, standard headers, `Mcp-Param-*`) stays the only one.
 */
export interface Dispatcher {
  dispatch<R>(
    message: unknown,
    scope: RequestScope,
    answering: Answering<R>,
    headers?: CallHeaders,
  ): Promise<R>;
}

/** A dispatcher over each view's registry, whose modern results name the server as `serverInfo`. */
export function createDispatcher(
  registryOf: (view: View) => ToolRegistry,
  serverInfo: Implementation,
): Dispatcher {
  const identity = identityOf(serverInfo);
  return {
    async dispatch(message, scope, answering, headers) {
      const registry = registryOf(scope.view);
      const call = plainCall(message, scope, headers, (name) => mirrorsParams(registry, name));
      if (!call) return answering.sdk();
      const own = answering.call?.(call.id);
      const callScope: McpCallScope = {
        requestId: call.id,
        signal: own?.signal ?? scope.signal,
        abort: own && ((reason) => own.abort(reason)),
        principal: scope.caller.principal,
        urlElicitation: scope.urlElicitation,
      };
      return answering.reply(await answer(registry, call, callScope, scope.era, identity));
    },
  };
}

/** The call's JSON-RPC response, serialized from the JSON text its result already has. */
async function answer(
  registry: ToolRegistry,
  call: PlainCall,
  scope: McpCallScope,
  era: RequestScope["era"],
  identity: Identity,
): Promise<string> {
  const id = JSON.stringify(call.id);
  try {
    const result = await registry.call(call.name, call.arguments, scope);
    return `{"jsonrpc":"2.0","id":${id},"result":${era === "modern" ? stamped(result, identity) : jsonText(result)}}`;
  } catch (error) {
    // The one error a tool call answers as a JSON-RPC error: a 2025 URL elicitation.
    if (!(error instanceof ProtocolError)) throw error;
    const { code, message, data } = error;
    return JSON.stringify({ jsonrpc: "2.0", id: call.id, error: { code, message, data } });
  }
}

/** The server's identity as a 2026-07-28 result's `_meta` names it, and the JSON ending a plain result. */
interface Identity {
  meta: { "io.modelcontextprotocol/serverInfo": Implementation };
  /** `resultType` and `_meta`, closing the result's object: serialized once, not per call. */
  tail: string;
}

function identityOf(serverInfo: Implementation): Identity {
  const meta = { "io.modelcontextprotocol/serverInfo": serverInfo };
  return { meta, tail: `,"resultType":"complete","_meta":${JSON.stringify(meta)}}` };
}

/**
 * A 2026-07-28 result as the SDK encodes it, serialized: `resultType` (complete unless given) and
 * the server's identity in `_meta`. A plain result gets both spliced onto the JSON it already has.
 */
function stamped(result: Record<string, unknown>, identity: Identity): string {
  if (result.resultType === undefined && result._meta === undefined)
    return `${jsonText(result).slice(0, -1)}${identity.tail}`;
  const resultType = result.resultType ?? "complete";
  return JSON.stringify({
    ...result,
    resultType,
    _meta: { ...metaOf({ _meta: result._meta }), ...identity.meta },
  });
}

/** The call in `message` when the fast path may answer it; undefined sends it to the SDK. */
function plainCall(
  message: unknown,
  scope: RequestScope,
  headers: CallHeaders | undefined,
  mirrored: (name: string) => boolean,
): PlainCall | undefined {
  const request = message as { jsonrpc?: unknown; method?: unknown; id?: unknown; params?: unknown } | null;
  if (request?.jsonrpc !== "2.0" || request.method !== "tools/call") return undefined;
  const { id } = request;
  const params = request.params as { name?: unknown; arguments?: unknown } | undefined;
  if ((typeof id !== "string" && typeof id !== "number") || typeof params?.name !== "string")
    return undefined;
  if (!isPlainObject(params.arguments ?? {})) return undefined;
  if (headers && !acceptsBoth(headers.accept)) return undefined;
  const fits =
    scope.era === "modern"
      ? plainModern(request, params.name, headers, mirrored)
      : plainLegacy(params, headers);
  return fits ? { id, name: params.name, arguments: params.arguments } : undefined;
}

/** A 2025 call without `_meta` (so no progress token), under a 2025 header or none. */
function plainLegacy(params: Record<string, unknown>, headers: CallHeaders | undefined): boolean {
  const version = headers?.["mcp-protocol-version"];
  if (version !== undefined && !LEGACY_REVISIONS.includes(version)) return false;
  const meta = params._meta;
  return meta === undefined || (isPlainObject(meta) && Object.keys(meta).length === 0);
}

/**
 * A 2026-07-28 call the SDK would serve as it is: a valid envelope that asks for no progress and is
 * no retry, its standard headers present and agreeing (over HTTP), and a tool with no `Mcp-Param`
 * headers to check.
 */
function plainModern(
  request: Record<string, unknown>,
  name: string,
  headers: CallHeaders | undefined,
  mirrored: (name: string) => boolean,
): boolean {
  const params = request.params as Record<string, unknown>;
  if (params.inputResponses !== undefined || params.requestState !== undefined) return false;
  if (metaOf(params)?.progressToken !== undefined || mirrored(name)) return false;
  const version = headers?.["mcp-protocol-version"];
  if (
    headers &&
    (version === undefined || headers["mcp-method"] !== "tools/call" || headers["mcp-name"] !== name)
  )
    return false;
  const route = classifyInboundRequest({
    httpMethod: "POST",
    body: request,
    ...(version === undefined ? {} : { protocolVersionHeader: version, mcpMethodHeader: "tools/call" }),
  });
  return route.kind === "modern" && MODERN_REVISIONS.includes(route.classification.revision ?? "");
}

/** The SDK answers JSON only to a client that accepts both JSON and an event stream. */
const acceptsBoth = (accept: string | undefined): boolean =>
  accept?.includes("application/json") === true && accept.includes("text/event-stream");

/** Input schemas already looked at, by whether they declare an `Mcp-Param-*` header. */
const declaring = new WeakMap<object, boolean>();

/**
 * Whether a tool, by either name form, mirrors a parameter into an `Mcp-Param-*` header (SEP-2243),
 * which only the SDK checks.
 */
function mirrorsParams(registry: ToolRegistry, name: string): boolean {
  const schema = registry.inputSchema(name);
  if (!schema) return false;
  let declares = declaring.get(schema);
  if (declares === undefined) {
    declares = JSON.stringify(schema).includes('"x-mcp-header"');
    declaring.set(schema, declares);
  }
  return declares;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
