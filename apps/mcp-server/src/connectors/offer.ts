import type { AnyToolDefinition, Toolkit } from "@toolkits/core";
import type { ToolRegistry } from "@toolkits/core/mcp";
import { appsView, type View, WHOLE, within } from "../views.js";
import { connectors } from "./selection.js";

/** A connector URL worth offering, and what it lists. */
export interface OfferedUrl {
  /** Its path: `/mcp`, `/mcp/search`, `/mcp/pager/readonly`… */
  path: string;
  /** What it serves, in words. */
  what: string;
  /** How many tools its `tools/list` carries to a client known to show no MCP Apps views. */
  tools: number;
  /**
   * How many it carries with the MCP Apps views' app-only tools (see `APPS_COUNT_NOTE` for which
   * clients get these); unset where that is the same number.
   */
  withApps?: number;
}

/** Who gets the count with the MCP Apps tools, for the page and the README beneath their tables. */
export const APPS_COUNT_NOTE =
  "A count in brackets includes the app-only tools of the MCP Apps views. A URL lists them to a client that shows MCP Apps views (its host keeps them from the model), and to every client speaking a 2025 revision over HTTP, since a stateless server cannot tell whether it shows them; a 2026-07-28 client that declares no MCP Apps support gets the first count.";

/** A URL's tool count in words: `138`, or `138 (140 with MCP Apps tools)`. */
export const toolCount = (url: OfferedUrl): string =>
  url.withApps === undefined ? String(url.tools) : `${url.tools} (${url.withApps} with MCP Apps tools)`;

/** The most tools a client may receive at a URL: what a client capped below it must be told of. */
export const mostTools = (url: OfferedUrl): number => url.withApps ?? url.tools;

/**
 * The URLs to offer on a server composing `toolkits` and serving `tools` (its own selection):
 * everything, the search catalogue, then each toolkit whole and read-only, and everything
 * read-only; a URL listing the same tools as one before it is left out. Each count is the length
 * of the listing `registryOf` serves at that URL, to a client without and one with MCP Apps views.
 */
export function offeredUrls(
  toolkits: readonly Toolkit[],
  tools: readonly AnyToolDefinition[],
  registryOf: (view: View) => ToolRegistry,
): OfferedUrl[] {
  const urls = connectors(toolkits, tools);
  const viewOf = (path: string): View | undefined => {
    if (path === "/mcp") return WHOLE;
    try {
      return urls.viewOf(path.slice("/mcp/".length));
    } catch {
      return undefined;
    }
  };
  const listed = (view: View | undefined) => (view ? registryOf(view).listing.length : 0);
  const counted = ({ path, what }: { path: string; what: string }): OfferedUrl => {
    const view = viewOf(path);
    const plain = listed(view);
    const withApps = listed(view && within(view, appsView("declared")));
    return { path, what, tools: plain, ...(withApps !== plain && { withApps }) };
  };
  const candidates = [
    { path: "/mcp", what: "every tool this server serves" },
    {
      path: "/mcp/search",
      what: `the search catalogue: search_tools and call_tool find and run any of the ${tools.length} tools`,
    },
    ...toolkits.flatMap((kit) => [
      { path: `/mcp/${kit.id}`, what: `${kit.title} tools`, same: "/mcp" },
      {
        path: `/mcp/${kit.id}/readonly`,
        what: `${kit.title} tools that change nothing`,
        same: `/mcp/${kit.id}`,
      },
    ]),
    { path: "/mcp/readonly", what: "every tool that changes nothing", same: "/mcp" },
  ];
  const all = new Map(candidates.map((candidate) => [candidate.path, counted(candidate)]));
  return candidates.flatMap((candidate) => {
    const url = all.get(candidate.path) as OfferedUrl;
    const same = "same" in candidate ? all.get(candidate.same)?.tools : undefined;
    return url.tools > 0 && url.tools !== same ? [url] : [];
  });
}
