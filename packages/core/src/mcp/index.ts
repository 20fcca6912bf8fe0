import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { CallScope, Host } from "../context.js";
import { invokeTool, type ToolOutcome } from "../invoke.js";
import type { AnyToolDefinition } from "../tool.js";

/** The parts of an MCP request a tool call uses. */
export interface McpCallExtra {
  signal: AbortSignal;
  _meta?: { progressToken?: string | number };
  sendNotification(notification: {
    method: "notifications/progress";
    params: { progressToken: string | number; progress: number; total?: number; message?: string };
  }): Promise<void>;
}

/**
 * Tools prepared once for serving over MCP: the `tools/list` answer is computed at creation,
 * so serving a request costs a map lookup, argument validation and the handler.
 */
export interface ToolRegistry {
  readonly definitions: ReadonlyMap<string, AnyToolDefinition>;
  /** The `tools/list` result entries (JSON Schema draft-07 input and output schemas, annotations). */
  readonly listing: readonly Tool[];
  /** Runs a tool; unknown tools and every failure come back as `isError` results. */
  call(name: string, args: unknown, extra: McpCallExtra): Promise<CallToolResult>;
}

/**
 * Builds the registry for `tools`, served with credentials and settings from `host`.
 * @param prebuilt `tools/list` entries computed ahead of time (by `toMcpTool`, e.g. at build time),
 *   by tool name; tools missing from it are converted now. Converting 138 tools' zod schemas to
 *   JSON Schema takes tens of milliseconds, a large share of a server's cold start.
 */
export function createToolRegistry(
  tools: readonly AnyToolDefinition[],
  host: Host,
  prebuilt: ReadonlyMap<string, Tool> = new Map(),
): ToolRegistry {
  const definitions = new Map(tools.map((tool) => [tool.name, tool]));
  return {
    definitions,
    listing: tools.map((tool) => prebuilt.get(tool.name) ?? toMcpTool(tool)),
    async call(name, args, extra) {
      const tool = definitions.get(name);
      if (!tool) {
        return errorResult(
          `invalid_input: Tool ${name} does not exist on this server. Call tools/list for the names.`,
        );
      }
      return toCallToolResult(await invokeTool(tool, args, host, callScope(extra)));
    },
  };
}

/**
 * Serves a registry from an MCP server: installs the `tools/list` and `tools/call` handlers and
 * declares the tools capability. Call before `connect`. An `McpServer` passed here must not also
 * get tools through its own `registerTool`.
 */
export function registerTools(server: Server | McpServer, registry: ToolRegistry): void {
  // Told apart by shape, so hosts that use the low-level Server never load McpServer's module.
  const low = "registerTool" in server ? server.server : server;
  low.registerCapabilities({ tools: { listChanged: false } });
  low.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...registry.listing] }));
  low.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    registry.call(request.params.name, request.params.arguments, extra),
  );
}

/** A definition as MCP lists it: title, description, JSON Schemas and all four annotations. */
export function toMcpTool(tool: AnyToolDefinition): Tool {
  const outputSchema = jsonSchema(tool.output, "output");
  // Results may gain `truncated`/`truncation` when capped, so the top level stays open.
  delete outputSchema.additionalProperties;
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchema(tool.input, "input") as Tool["inputSchema"],
    outputSchema: outputSchema as Tool["outputSchema"],
    annotations: {
      title: tool.title,
      readOnlyHint: tool.hints.readOnly,
      destructiveHint: tool.hints.destructive,
      idempotentHint: tool.hints.idempotent,
      openWorldHint: tool.hints.openWorld,
    },
  };
}

/** structuredContent plus the same JSON as text for clients that only read text; errors as `isError`. */
export function toCallToolResult(outcome: ToolOutcome): CallToolResult {
  if (!outcome.ok) return errorResult(outcome.error.toText());
  return {
    content: [{ type: "text", text: JSON.stringify(outcome.result) }],
    structuredContent: outcome.result,
  };
}

function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text }] };
}

/** zod writes these bounds on every integer; they say nothing and cost catalogue bytes. */
const SAFE_INTEGER_BOUNDS: Readonly<Record<string, number>> = {
  minimum: Number.MIN_SAFE_INTEGER,
  maximum: Number.MAX_SAFE_INTEGER,
};

function jsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, {
    target: "draft-07",
    io,
    unrepresentable: "any",
    override: ({ jsonSchema: node }) => {
      const bounds = node as Record<string, unknown>;
      for (const [key, value] of Object.entries(SAFE_INTEGER_BOUNDS))
        if (bounds[key] === value) delete bounds[key];
    },
  });
  return rest;
}

function callScope(extra: McpCallExtra): CallScope {
  const token = extra._meta?.progressToken;
  if (token === undefined) return { signal: extra.signal };
  return {
    signal: extra.signal,
    progress: ({ progress, total, message }) => {
      extra
        .sendNotification({
          method: "notifications/progress",
          params: { progressToken: token, progress, total, message },
        })
        .catch(() => {});
    },
  };
}
