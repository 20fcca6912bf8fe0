import type { AnyToolDefinition, Toolkit } from "@toolkits/core";
import { connectors } from "./selection.js";

/** A connector URL worth offering, and what it lists. */
export interface OfferedUrl {
  /** Its path: `/mcp`, `/mcp/search`, `/mcp/pager/readonly`… */
  path: string;
  /** What it serves, in words. */
  what: string;
  /** How many tools its `tools/list` carries. */
  tools: number;
}

/** What the search catalogue lists: `search_tools` and `call_tool` (core's `searchCatalog`). */
const SEARCH_CATALOGUE_TOOLS = 2;

/**
 * The URLs to offer on a server composing `toolkits` and serving `tools` (its own selection):
 * everything, the search catalogue, then each toolkit whole and read-only, and everything
 * read-only; a URL listing the same tools as one before it is left out.
 */
export function offeredUrls(toolkits: readonly Toolkit[], tools: readonly AnyToolDefinition[]): OfferedUrl[] {
  const urls = connectors(toolkits, tools);
  const count = (selection: string) => {
    try {
      return tools.filter(urls.viewOf(selection).admits).length;
    } catch {
      return 0;
    }
  };
  const readOnly = tools.filter((tool) => tool.hints.readOnly).length;
  const candidates = [
    { path: "/mcp", what: "every tool this server serves", tools: tools.length },
    {
      path: "/mcp/search",
      what: `the search catalogue: search_tools and call_tool find and run any of the ${tools.length} tools`,
      tools: SEARCH_CATALOGUE_TOOLS,
    },
    ...toolkits.flatMap((kit) => [
      { path: `/mcp/${kit.id}`, what: `${kit.title} tools`, tools: count(kit.id), same: tools.length },
      {
        path: `/mcp/${kit.id}/readonly`,
        what: `${kit.title} tools that change nothing`,
        tools: count(`${kit.id}/readonly`),
        same: count(kit.id),
      },
    ]),
    { path: "/mcp/readonly", what: "every tool that changes nothing", tools: readOnly, same: tools.length },
  ];
  return candidates
    .filter((url) => url.tools > 0 && url.tools !== ("same" in url ? url.same : -1))
    .map(({ path, what, tools: listed }) => ({ path, what, tools: listed }));
}
