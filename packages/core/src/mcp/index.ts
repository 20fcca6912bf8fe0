import type {
  CacheHint,
  CallToolResult,
  ClientCapabilities,
  Implementation,
  InputRequiredResult,
  JSONObject,
  ReadResourceResult,
  Resource,
  McpServer as SdkServer,
  ServerContext,
  Tool,
} from "@modelcontextprotocol/server";
import type { Host } from "../context.js";
import type { ConnectLink } from "../errors.js";
import { invokeTool } from "../invoke.js";
import { type ToolNameForm, type ToolNames, toolNames } from "../names.js";
import { loadPeer } from "../peers.js";
import { rewriteJson } from "../served-json.js";
import type { AnyToolDefinition } from "../tool.js";
import { type CatalogMode, searchCatalog } from "./catalog.js";
import {
  callScope,
  errorResult,
  type McpCallScope,
  toCallToolResult,
  toMcpTool,
  type UrlElicitationForm,
} from "./convert.js";
import { CONNECT_INPUT, readMessage, urlElicitationOf } from "./inbound.js";

export { jsonSchema } from "../json-schema.js";
export { CATALOG_MODES, type CatalogMode } from "./catalog.js";
export {
  CONNECT_INPUT,
  type Era,
  type InboundBody,
  type InboundMessage,
  LEGACY_REVISIONS,
  type MessageId,
  MODERN_REVISIONS,
  readInbound,
  readMessage,
  urlElicitationOf,
  writeMeta,
} from "./inbound.js";

// Loaded here, so a project without the MCP SDK learns which package to install.
const { McpServer, ResourceNotFoundError, UrlElicitationRequiredError, inputRequired } = await loadPeer(
  () => import("@modelcontextprotocol/server"),
  "@toolkits/core/mcp",
  "@modelcontextprotocol/server",
  "^2.4",
);

export {
  type ElicitationFacts,
  errorResult,
  type McpCallScope,
  toCallToolResult,
  toMcpTool,
  type UrlElicitationForm,
  urlElicitationFor,
} from "./convert.js";

/** Options of `createToolRegistry`: name form, catalogue mode, prebuilt listing entries. */
export interface RegistryOptions {
  /**
   * The form tool names are served in (default `underscore`, which every client accepts). Calls
   * by either form work; every text a model reads names tools in this form.
   */
  names?: ToolNameForm;
  /**
   * `full` (default) lists every tool; `search` lists only `search_tools` and `call_tool`, which
   * find and run any of them, for clients with small tool budgets.
   */
  catalog?: CatalogMode;
  /**
   * `tools/list` entries computed ahead of time (by `toMcpTool`, e.g. at build time), by canonical
   * name; tools missing from it are converted now. Converting 138 tools' zod schemas to JSON
   * Schema takes tens of milliseconds, a large share of a server's cold start.
   */
  prebuilt?: ReadonlyMap<string, Tool>;
  /**
   * Further canonical names that texts may mention (e.g. tools filtered out of this server), so
   * their mentions are rewritten to the served form too.
   */
  mentionable?: readonly string[];
}

/**
 * Tools prepared once for serving over MCP: the `tools/list` answer is computed at creation, so
 * serving a request costs a map lookup, argument validation and the handler.
 */
export interface ToolRegistry {
  /** The `tools/list` entries, names and texts in the served form. */
  readonly listing: readonly Tool[];
  /** Names of the served tools, in either form. */
  readonly names: ToolNames;
  /** The input JSON Schema of a listed tool, by its name in either form; undefined when unknown. */
  inputSchema(name: string): Tool["inputSchema"] | undefined;
  /**
   * Runs a tool by its name in either form. Unknown tools and every failure come back as `isError`
   * results whose text names tools in the served form, except a call that needs the caller to
   * connect an account, for a client taking URL elicitations (`scope.urlElicitation`): that is an
   * input-required result (2026-07-28) or thrown as UrlElicitationRequiredError (2025-11-25, -32042).
   */
  call(name: string, args: unknown, scope: McpCallScope): Promise<CallResult>;
  /** Resources served beside the tools (e.g. MCP Apps views); none when absent. */
  readonly resources?: ResourceCatalog;
}

/** Resources a registry serves: what `resources/list` lists, and how each reads. */
export interface ResourceCatalog {
  readonly listing: readonly Resource[];
  /** A listed resource's `resources/read` answer; undefined for a URI it does not serve. */
  read(uri: string): Promise<ReadResourceResult | undefined>;
}

/** What a tool call answers: its result, or (2026-07-28) a request for the caller's input first. */
export type CallResult = CallToolResult | InputRequiredResult;

/**
 * Builds the registry for `tools`, served with credentials and settings from `host`.
 * @throws Error when two tools would be served under the same name.
 */
export function createToolRegistry(
  tools: readonly AnyToolDefinition[],
  host: Host,
  options: RegistryOptions = {},
): ToolRegistry {
  const names = toolNames(
    [...tools.map((tool) => tool.name), ...(options.mentionable ?? [])],
    options.names ?? "underscore",
  );
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const entries = tools.map((tool) =>
    servedEntry(options.prebuilt?.get(tool.name) ?? toMcpTool(tool), names),
  );
  const listed = (listing: readonly Tool[]) => {
    const byServed = new Map(listing.map((entry) => [entry.name, entry.inputSchema]));
    return (name: string) => byServed.get(name) ?? byServed.get(names.served(names.canonical(name) ?? ""));
  };
  const direct = async (name: string, args: unknown, scope: McpCallScope): Promise<CallResult> => {
    const tool = byName.get(names.canonical(name) ?? "");
    if (!tool) return unknownTool(name, options.catalog ?? "full");
    const outcome = await invokeTool(tool, args, host, callScope(scope));
    const connect = outcome.ok ? undefined : outcome.error.connect;
    const form = connect && (await scope.urlElicitation?.());
    if (connect && form) return askToConnect(connect, form);
    return toCallToolResult(outcome, names);
  };
  if (options.catalog !== "search")
    return { listing: entries, names, inputSchema: listed(entries), call: direct };
  const catalog = searchCatalog(tools, entries, direct);
  return {
    listing: catalog.listing,
    names,
    inputSchema: listed(catalog.listing),
    call: (name, args, scope) =>
      catalog.handles(name) ? catalog.call(name, args, scope, host) : direct(name, args, scope),
  };
}

/**
 * A URL elicitation sending the caller to `link`, in the form of the client's revision.
 * @throws UrlElicitationRequiredError for a 2025-11-25 client: the SDK answers it as error -32042.
 */
function askToConnect(link: ConnectLink, form: UrlElicitationForm): InputRequiredResult {
  const { url, message, id: elicitationId } = link;
  if (form === "error")
    throw new UrlElicitationRequiredError([{ mode: "url", elicitationId, url, message }], message);
  return inputRequired({ inputRequests: { [CONNECT_INPUT]: inputRequired.elicitUrl({ message, url }) } });
}

/**
 * The scope of a tool call the SDK dispatched, as the request itself tells it: its id, signal and
 * progress token, and its URL-elicitation form (a 2026-07-28 request declares its capabilities
 * itself; a 2025 client declared them at `initialize`). The default of `createMcpServer`.
 */
export function sdkCallScope(
  ctx: ServerContext,
  initialized: ClientCapabilities | undefined,
  progress: McpCallScope["progress"],
): McpCallScope {
  // The SDK hands the envelope and the answers apart from the call: read back as the message they came in.
  const params = { _meta: ctx.mcpReq.envelope, inputResponses: ctx.mcpReq.inputResponses };
  const form = urlElicitationOf(readMessage({ method: "tools/call", params }), initialized);
  return { requestId: ctx.mcpReq.id, signal: ctx.mcpReq.signal, urlElicitation: () => form, progress };
}

/**
 * Progress as notifications, when the request asked for it with a progress token, and `drained`,
 * which settles once every notification sent so far is written: a result written before its last
 * progress notification would make the client drop that notification.
 */
function progressSink(ctx: ServerContext): { progress: McpCallScope["progress"]; drained(): Promise<void> } {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return { progress: undefined, drained: async () => {} };
  let sent: Promise<unknown> = Promise.resolve();
  return {
    progress: ({ progress, total, message }) => {
      const notification = ctx.mcpReq.notify({
        method: "notifications/progress",
        params: { progressToken: token, progress, total, message },
      });
      sent = Promise.all([sent, notification.catch(() => {})]);
    },
    drained: async () => {
      await sent;
    },
  };
}

/**
 * How an `McpServer` made by `createMcpServer` scopes each tool call the SDK hands it: from the
 * request, the capabilities its client declared at `initialize` (2025), and the progress sink the
 * server made for it (undefined when the client asked for no progress).
 */
export type ScopeOf = (
  ctx: ServerContext,
  initialized: ClientCapabilities | undefined,
  progress: McpCallScope["progress"],
) => McpCallScope;

function unknownTool(name: string, catalog: CatalogMode): CallToolResult {
  const where = catalog === "search" ? "Call search_tools to find one." : "Call tools/list for the names.";
  return errorResult(`invalid_input: Tool ${name} does not exist on this server. ${where}`);
}

/** Identity and instructions of a server built by `createMcpServer`, and what it declares. */
export interface McpServerInfo extends Implementation {
  instructions?: string;
  /** Extensions the server declares in its capabilities, by id (e.g. `io.modelcontextprotocol/ui`). */
  extensions?: Record<string, JSONObject>;
  /**
   * Whether the tool and resource lists differ by client (e.g. by the extensions it declares):
   * then they carry a `private` cache hint, never `public`.
   */
  listsVary?: boolean;
}

/** The lists never change while a server runs: any client may keep them for an hour. */
const LIST_CACHE: CacheHint = { ttlMs: 60 * 60 * 1000, cacheScope: "public" };
/** Lists that differ by client: only the client that asked may keep them. */
const VARYING_LIST_CACHE: CacheHint = { ...LIST_CACHE, cacheScope: "private" };

/** The registry a request is answered from: one for every request, or one picked per request. */
export type RegistryFor = ToolRegistry | ((ctx: ServerContext) => ToolRegistry);

/**
 * An MCP server answering from `registry`, for any protocol revision the SDK serves (2026-07-28,
 * with cache hints on its lists, and the 2025 revisions). It has tools, and the registry's
 * resources if it has any; the empty prompt list (and resource list, without resources) is there
 * because 2026-07-28 clients may ask any server for them. Cheap to create: the HTTP transport makes
 * one per request, without registering a tool. A function `registry` picks the registry of each
 * request (one server for a connection whose requests see different tools, as over stdio); such a
 * server checks no `Mcp-Param-*` headers, which only HTTP has.
 */
export function createMcpServer(
  registry: RegistryFor,
  info: McpServerInfo,
  scopeOf: ScopeOf = sdkCallScope,
): SdkServer {
  return new RegistryServer(registry, info, scopeOf);
}

/**
 * An `McpServer` whose tools live in a prebuilt registry rather than in its own `registerTool`
 * table. It is an `McpServer` (not the low-level `Server`) because the SDK's HTTP entry checks a
 * call's `Mcp-Param-*` headers (SEP-2243) only for `McpServer`s, through `toolInputSchemaJson`.
 */
class RegistryServer extends McpServer {
  constructor(
    private readonly registry: RegistryFor,
    { instructions, extensions, listsVary, ...implementation }: McpServerInfo,
    scopeOf: ScopeOf,
  ) {
    const lists = listsVary ? VARYING_LIST_CACHE : LIST_CACHE;
    super(implementation, {
      instructions,
      cacheHints: {
        "tools/list": lists,
        "prompts/list": LIST_CACHE,
        "resources/list": lists,
        "resources/templates/list": LIST_CACHE,
      },
    });
    const low = this.server;
    const of = typeof registry === "function" ? registry : () => registry;
    low.registerCapabilities({
      tools: { listChanged: false },
      prompts: {},
      resources: {},
      ...(extensions && { extensions }),
    });
    low.setRequestHandler("tools/list", (_request, ctx) => ({ tools: [...of(ctx).listing] }));
    low.setRequestHandler("tools/call", async (request, ctx) => {
      const sink = progressSink(ctx);
      const scope = scopeOf(ctx, low.getClientCapabilities(), sink.progress);
      try {
        return await of(ctx).call(request.params.name, request.params.arguments, scope);
      } finally {
        await sink.drained();
      }
    });
    low.setRequestHandler("prompts/list", () => ({ prompts: [] }));
    low.setRequestHandler("resources/list", (_request, ctx) => ({
      resources: [...(of(ctx).resources?.listing ?? [])],
    }));
    low.setRequestHandler("resources/templates/list", () => ({ resourceTemplates: [] }));
    low.setRequestHandler("resources/read", async (request, ctx) => {
      const read = await of(ctx).resources?.read(request.params.uri);
      if (!read) throw new ResourceNotFoundError(request.params.uri);
      return read;
    });
  }

  override toolInputSchemaJson(name: string): Record<string, unknown> | undefined {
    return typeof this.registry === "function" ? undefined : this.registry.inputSchema(name);
  }
}

/** A listing entry with its name, and every tool its texts mention, in the served form. */
function servedEntry(entry: Tool, names: ToolNames): Tool {
  return { ...rewriteJson(entry, names.rewrite).value, name: names.served(entry.name) };
}
