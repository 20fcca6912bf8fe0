import { classifyInboundRequest, type Implementation, ProtocolError } from "@modelcontextprotocol/server";
import { jsonText } from "@toolkits/core";
import {
  type CallResult,
  type Era,
  type InboundBody,
  type InboundMessage,
  LEGACY_REVISIONS,
  type McpCallScope,
  type MessageId,
  MODERN_REVISIONS,
  type ToolRegistry,
} from "@toolkits/core/mcp";
import { callScope, type RequestScope } from "./scope.js";
import type { Failure } from "./telemetry/index.js";
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
  /**
   * Writes the fast path's answer: one JSON-RPC response, serialized; `failure` when it is an
   * error or a tool error (for telemetry, which then needs not read the answer again).
   */
  reply(response: string, failure?: Failure): R | Promise<R>;
}

/** A tool call the fast path answers. */
interface PlainCall {
  id: MessageId;
  /** As sent: the registry takes either form, and names an unknown tool as the client did. */
  name: string;
  arguments: unknown;
}

/**
 * The one place that decides how a request is answered. The commonest request of all, a single
 * `tools/call` asking for no progress, is answered straight from the registry, with exactly what the
 * SDK would have answered: building the SDK's per-request server, transport and web-standard
 * objects costs more than the call itself. Everything else goes to the SDK, including every request
 * the SDK would refuse, so its validation (envelope, standard headers, `Mcp-Param-*`) stays the only one.
 */
export interface Dispatcher {
  dispatch<R>(
    inbound: InboundBody,
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
    async dispatch(inbound, scope, answering, headers) {
      const registry = registryOf(scope.view);
      const message = inbound.single;
      const call =
        message &&
        plainCall(inbound.raw, message, scope.era, headers, (name) => mirrorsParams(registry, name));
      if (!message || !call) return answering.sdk();
      const callScoped = callScope(scope, { id: call.id });
      return answer(registry, call, callScoped, { era: scope.era, identity }, answering);
    },
  };
}

const TOOL_ERROR: Failure = Object.freeze({ errorType: "tool_error" });

/** Writes the call's JSON-RPC response, serialized from the JSON text its result already has. */
async function answer<R>(
  registry: ToolRegistry,
  call: PlainCall,
  scope: McpCallScope,
  { era, identity }: { era: Era; identity: Identity },
  answering: Answering<R>,
): Promise<R> {
  let result: CallResult;
  try {
    result = await registry.call(call.name, call.arguments, scope);
  } catch (error) {
    // The one error a tool call answers as a JSON-RPC error: a 2025 URL elicitation.
    if (!(error instanceof ProtocolError)) throw error;
    const { code, message, data } = error;
    const response = JSON.stringify({ jsonrpc: "2.0", id: call.id, error: { code, message, data } });
    return answering.reply(response, { errorType: String(code), code, message });
  }
  const text = era === "modern" ? stamped(result, identity) : jsonText(result);
  const response = `{"jsonrpc":"2.0","id":${JSON.stringify(call.id)},"result":${text}}`;
  return answering.reply(response, result.isError === true ? TOOL_ERROR : undefined);
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
    _meta: { ...(isPlainObject(result._meta) ? result._meta : {}), ...identity.meta },
  });
}

/** The call in `message` when the fast path may answer it; undefined sends it to the SDK. */
function plainCall(
  raw: unknown,
  message: InboundMessage,
  era: Era,
  headers: CallHeaders | undefined,
  mirrored: (name: string) => boolean,
): PlainCall | undefined {
  const { id, call } = message;
  if (!message.jsonrpc || message.method !== "tools/call" || id === undefined || !call) return undefined;
  if (!isPlainObject(call.arguments ?? {})) return undefined;
  if (headers && !acceptsBoth(headers.accept)) return undefined;
  const fits =
    era === "modern"
      ? plainModern(raw, message, call.name, headers, mirrored)
      : plainLegacy(message, headers);
  return fits ? { id, name: call.name, arguments: call.arguments } : undefined;
}

/**
 * The `_meta` keys a 2025 call may carry and still be plain: the trace context (SEP-414), which
 * the SDK would not act on either; the server's telemetry reads it from the parsed message.
 */
const TRACE_KEYS: ReadonlySet<string> = new Set(["traceparent", "tracestate", "baggage"]);

/**
 * A 2025 call whose `_meta`, if any, holds nothing but trace context (so no progress token), under
 * a 2025 header or none.
 */
function plainLegacy(message: InboundMessage, headers: CallHeaders | undefined): boolean {
  const version = headers?.["mcp-protocol-version"];
  if (version !== undefined && !LEGACY_REVISIONS.includes(version)) return false;
  if (message.params?._meta === undefined) return true;
  const { meta } = message;
  if (meta === undefined) return false;
  for (const key in meta) if (!TRACE_KEYS.has(key)) return false;
  return true;
}

/**
 * A 2026-07-28 call the SDK would serve as it is: a valid envelope that asks for no progress and is
 * no retry, its standard headers present and agreeing (over HTTP), and a tool with no `Mcp-Param`
 * headers to check.
 */
function plainModern(
  raw: unknown,
  message: InboundMessage,
  name: string,
  headers: CallHeaders | undefined,
  mirrored: (name: string) => boolean,
): boolean {
  if (message.retrying || message.progressToken !== undefined || mirrored(name)) return false;
  const version = headers?.["mcp-protocol-version"];
  const method = headers?.["mcp-method"];
  if (headers && (version === undefined || method === undefined || headers["mcp-name"] !== name))
    return false;
  return sdkServesModern(raw, message, version, method);
}

/** The SDK's verdicts on 2026-07-28 calls, by what decides them (`verdictKey`). */
const verdicts = new Map<string, boolean>();
/** A client sends the same envelope and headers with each call: a few entries serve every client. */
const VERDICTS_KEPT = 256;
/** Longer keys (an envelope carrying much more than a client's name and capabilities) are not kept. */
const VERDICT_KEY_MAX = 2_048;

/**
 * Whether the SDK's own classification routes the call to a 2026-07-28 revision it serves. It
 * validates the whole message, so its verdict is kept by what alone decides it when the message has
 * no foreign members: the headers, the id's type and the envelope (arguments and name never matter).
 */
function sdkServesModern(
  raw: unknown,
  message: InboundMessage,
  version: string | undefined,
  method: string | undefined,
): boolean {
  const whole = message.requestMembersOnly ? verdictKey(message, version, method) : undefined;
  const key = whole !== undefined && whole.length <= VERDICT_KEY_MAX ? whole : undefined;
  const kept = key === undefined ? undefined : verdicts.get(key);
  if (kept !== undefined) return kept;
  const route = classifyInboundRequest({
    httpMethod: "POST",
    body: raw,
    ...(version !== undefined && { protocolVersionHeader: version }),
    ...(method !== undefined && { mcpMethodHeader: method }),
  });
  const verdict = route.kind === "modern" && MODERN_REVISIONS.includes(route.classification.revision ?? "");
  if (key !== undefined) {
    if (verdicts.size >= VERDICTS_KEPT) verdicts.clear();
    verdicts.set(key, verdict);
  }
  return verdict;
}

const verdictKey = (message: InboundMessage, version?: string, method?: string): string =>
  JSON.stringify([version, method, idKind(message.id), message.method, message.params?._meta]);

const idKind = (id: MessageId | undefined): string =>
  typeof id === "number" ? (Number.isSafeInteger(id) ? "integer" : "number") : typeof id;

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
