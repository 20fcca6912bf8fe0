import type { CallToolResult, InputRequiredResult, Tool } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { Host } from "../context.js";
import { invokeTool, parseArguments } from "../invoke.js";
import { toolNames } from "../names.js";
import { type AnyToolDefinition, defineTool, type ToolHints } from "../tool.js";
import { callScope, errorResult, type McpCallScope, toCallToolResult, toMcpTool } from "./convert.js";

/** `full` lists every tool; `search` lists `search_tools` and `call_tool` only. */
export type CatalogMode = "full" | "search";

/** Every `CatalogMode`, for validating a setting (e.g. a command-line option). */
export const CATALOG_MODES: readonly CatalogMode[] = ["full", "search"];

type Call = (
  name: string,
  args: unknown,
  scope: McpCallScope,
) => Promise<CallToolResult | InputRequiredResult>;

/** The two tools of the search catalogue, over the served `entries` of `tools`. */
export interface SearchCatalog {
  listing: readonly Tool[];
  /** Whether `name` is one of the catalogue's own two tools. */
  handles(name: string): boolean;
  call(
    name: string,
    args: unknown,
    scope: McpCallScope,
    host: Host,
  ): Promise<CallToolResult | InputRequiredResult>;
}

const MAX_RESULTS = 20;

/**
 * The search catalogue: `search_tools` finds tools among `entries` (served listing entries, in
 * the order of `tools`); `call_tool` runs any of them through `call`, so its validation,
 * credentials, errors and results are exactly those of a direct call.
 */
export function searchCatalog(
  tools: readonly AnyToolDefinition[],
  entries: readonly Tool[],
  call: Call,
): SearchCatalog {
  // The index is built on the first search: its library loads only for a server that searches.
  let search: Promise<{ search(query: string, limit: number): Tool[] }> | undefined;
  const searchTools = defineTool({
    name: "search_tools",
    title: "Search tools",
    description: `Finds the tools for a task among the ${entries.length} this server offers: describe what the user wants done in plain words. Returns the best matches with their names, descriptions, hints and full input schemas; run one with call_tool.`,
    input: z.object({
      query: z.string().trim().min(1).max(500).describe("What the user wants done, e.g. 'who is on call'"),
      limit: z.number().int().min(1).max(MAX_RESULTS).default(5).describe("Most tools to return"),
    }),
    output: z.object({ tools: z.array(z.record(z.string(), z.unknown())) }),
    hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    auth: {},
    handler: async ({ query, limit }) => {
      search ??= import("./search.js").then(({ createToolSearch }) => createToolSearch(entries));
      return { tools: (await search).search(query, limit).map(summary) };
    },
  });
  const callTool = defineTool({
    name: "call_tool",
    title: "Call a tool",
    description:
      "Runs one tool found with search_tools: name as search_tools gave it, arguments as its input schema says. Answers exactly as the tool itself does.",
    input: z.object({
      name: z.string().min(1).describe("The tool's name, from search_tools"),
      arguments: z.record(z.string(), z.unknown()).default({}).describe("The tool's arguments"),
    }),
    output: z.object({}).passthrough(),
    hints: mostCautious(tools.map((tool) => tool.hints)),
    auth: {},
    handler: async () => ({}),
  });
  const own = toolNames([], "dotted");
  // call_tool answers with the called tool's result, whatever its shape.
  const { outputSchema: _, ...callEntry } = toMcpTool(callTool);
  const listing = [toMcpTool(searchTools), callEntry];
  return {
    listing,
    handles: (name) => name === searchTools.name || name === callTool.name,
    async call(name, args, scope, host) {
      if (name === searchTools.name) {
        return toCallToolResult(await invokeTool(searchTools, args, host, callScope(scope)), own);
      }
      let target: { name: string; arguments: Record<string, unknown> };
      try {
        target = parseArguments(callTool, args) as typeof target;
      } catch (error) {
        return errorResult((error as { toText(): string }).toText());
      }
      return call(target.name, target.arguments, scope);
    },
  };
}

/** What search_tools tells of a tool: all a model needs to call it. */
function summary(entry: Tool): Record<string, unknown> {
  const { name, title, description, annotations, inputSchema } = entry;
  return { name, title, description, annotations, inputSchema };
}

/** The hints of a tool that may do what any of these tools does. */
function mostCautious(hints: readonly ToolHints[]): ToolHints {
  return {
    readOnly: hints.every((hint) => hint.readOnly),
    destructive: hints.some((hint) => !hint.readOnly && hint.destructive),
    idempotent: hints.every((hint) => hint.idempotent),
    openWorld: hints.some((hint) => hint.openWorld),
  };
}
