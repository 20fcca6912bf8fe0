import type { ClientCapabilities } from "@modelcontextprotocol/server";
import type { ToolNames } from "../names.js";
import { type UrlElicitationForm, urlElicitationFor } from "./convert.js";

/** The revisions served with a per-request `_meta` envelope (2026-07-28), by their `protocolVersion`. */
export const MODERN_REVISIONS: readonly string[] = ["2026-07-28"];
/** The 2025 revisions, agreed at `initialize` and named over HTTP by the `MCP-Protocol-Version` header. */
export const LEGACY_REVISIONS: readonly string[] = ["2025-11-25", "2025-06-18", "2025-03-26"];

/** The protocol era of a message: `modern` is 2026-07-28, `legacy` the 2025 revisions. */
export type Era = "modern" | "legacy";

/** The envelope's keys (2026-07-28 `params._meta`). */
const PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
/** The key of the connect request in an input-required result; a retry answers under it. */
export const CONNECT_INPUT = "connect";

/** A JSON-RPC id. */
export type MessageId = string | number;

/**
 * One JSON-RPC message as the server reads it: everything any layer decides on, read once, so no
 * layer looks into the raw message again (the SDK, which gets the raw message, validates it itself).
 */
export interface InboundMessage {
  /** Whether it says it is JSON-RPC 2.0 (`"jsonrpc": "2.0"`). */
  readonly jsonrpc: boolean;
  /**
   * Whether it has no members beside a request's own (`jsonrpc`, `id`, `method`, `params`): the
   * SDK refuses a request with any other, so only then does its verdict not depend on the rest.
   */
  readonly requestMembersOnly: boolean;
  /** A request's id (a response's too); absent for a notification. */
  readonly id?: MessageId;
  /** A request's or notification's method; absent for a response. */
  readonly method?: string;
  /** `params`, when an object. */
  readonly params?: Readonly<Record<string, unknown>>;
  /** `params._meta`, when an object: a 2026-07-28 envelope, or a 2025 progress token. */
  readonly meta?: Readonly<Record<string, unknown>>;
  /** The revision it names: its envelope's, or (at `initialize`) the one it asks for. */
  readonly revision?: string;
  /** The one era rule: a message whose envelope names a 2026-07-28 revision is modern, any other legacy. */
  readonly era: Era;
  /** What its client declares: a 2026-07-28 envelope's capabilities, or `initialize`'s. */
  readonly capabilities?: ClientCapabilities;
  readonly progressToken?: MessageId;
  /** A 2026-07-28 retry: what it answers (`inputResponses`), or the state it carries back. */
  readonly inputResponses?: Readonly<Record<string, unknown>>;
  readonly retrying: boolean;
  /** A `tools/call`'s tool: its name as sent and canonical (when the server knows it), and its arguments. */
  readonly call?: { readonly name: string; readonly canonical?: string; readonly arguments: unknown };
  /** The request a `notifications/cancelled` names. */
  readonly cancels?: MessageId;
}

/** A request or batch body, read once (see `readInbound`). */
export interface InboundBody {
  /** The body as received: what the SDK is handed. */
  readonly raw: unknown;
  /** Its messages: the one, or a batch's. */
  readonly messages: readonly InboundMessage[];
  /** The message of a body that is not a batch. */
  readonly single: InboundMessage | undefined;
}

/**
 * Reads a JSON-RPC body (one message or a batch) once into what the server decides on. `names`
 * makes each called tool's name canonical (either served form names the same tool).
 */
export function readInbound(raw: unknown, names?: ToolNames): InboundBody {
  if (!Array.isArray(raw)) {
    const single = readMessage(raw, names);
    return { raw, messages: [single], single };
  }
  return { raw, messages: raw.map((message) => readMessage(message, names)), single: undefined };
}

/** Reads one JSON-RPC message (see `InboundMessage`); anything not an object reads as empty. */
export function readMessage(raw: unknown, names?: ToolNames): InboundMessage {
  const message = objectOr(raw);
  const method = typeof message?.method === "string" ? message.method : undefined;
  const params = objectOr(message?.params);
  const meta = objectOr(params?._meta);
  const envelopeRevision = stringOr(meta?.[PROTOCOL_VERSION]);
  const era: Era =
    envelopeRevision !== undefined && MODERN_REVISIONS.includes(envelopeRevision) ? "modern" : "legacy";
  const initialize = method === "initialize";
  const inputResponses = objectOr(params?.inputResponses);
  return {
    jsonrpc: message?.jsonrpc === "2.0",
    requestMembersOnly: message !== undefined && requestMembersOnly(message),
    id: idOr(message?.id),
    method,
    params,
    meta,
    revision: envelopeRevision ?? (initialize ? stringOr(params?.protocolVersion) : undefined),
    era,
    capabilities: (era === "modern"
      ? objectOr(meta?.[CLIENT_CAPABILITIES])
      : initialize
        ? objectOr(params?.capabilities)
        : undefined) as ClientCapabilities | undefined,
    progressToken: idOr(meta?.progressToken),
    inputResponses,
    retrying: inputResponses !== undefined || params?.requestState !== undefined,
    call: method === "tools/call" ? callOf(params, names) : undefined,
    cancels: method === "notifications/cancelled" ? idOr(params?.requestId) : undefined,
  };
}

/**
 * How the client of `message` takes a URL elicitation (the one rule, `urlElicitationFor`), in
 * `era` (the message's own, unless its connection decided another): a modern message says in its
 * envelope (and a retry already answering the connect request is not asked again); a legacy client
 * said at `initialize` (`initialized`, as the transport kept it).
 */
export function urlElicitationOf(
  message: InboundMessage,
  initialized: ClientCapabilities | undefined,
  era: Era = message.era,
): UrlElicitationForm | undefined {
  if (era === "legacy") return urlElicitationFor({ era: "legacy", capabilities: initialized });
  const answered = message.inputResponses?.[CONNECT_INPUT] !== undefined;
  return urlElicitationFor({ era: "modern", capabilities: message.capabilities, answered });
}

/**
 * Writes `value` into a raw request message's `params._meta` under `key` (making `params` and
 * `_meta` when absent), replacing whatever the client sent under that key: how a transport hands
 * something of its own to the SDK's handlers where it has no other channel (stdio).
 */
export function writeMeta(raw: unknown, key: string, value: unknown): void {
  const message = objectOr(raw);
  if (!message) return;
  const params = objectOr(message.params) ?? {};
  params._meta = { ...objectOr(params._meta), [key]: value };
  message.params = params;
}

function callOf(params: Record<string, unknown> | undefined, names: ToolNames | undefined) {
  const name = params?.name;
  if (typeof name !== "string") return undefined;
  return { name, canonical: names?.canonical(name), arguments: params?.arguments };
}

const REQUEST_MEMBERS: ReadonlySet<string> = new Set(["jsonrpc", "id", "method", "params"]);

function requestMembersOnly(message: Record<string, unknown>): boolean {
  for (const key in message) if (!REQUEST_MEMBERS.has(key)) return false;
  return true;
}

const objectOr = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

const stringOr = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

const idOr = (value: unknown): MessageId | undefined =>
  typeof value === "string" || typeof value === "number" ? value : undefined;
