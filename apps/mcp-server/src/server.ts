import { readFileSync } from "node:fs";
import type { Implementation } from "@modelcontextprotocol/server";
import { createMcpServer, type ScopeOf, type ToolRegistry } from "@toolkits/core/mcp";

/** This package's version, shown by `--version` and in the MCP server info. */
export const VERSION: string = JSON.parse(
  readFileSync(new URL("../package.json", import.meta.url), "utf8"),
).version;

/** The server's identity in `initialize` and `server/discover` answers and on 2026-07-28 results. */
export const SERVER_INFO: Implementation = { name: "toolkits-mcp", version: VERSION };

/**
 * An MCP server answering from a prebuilt registry, for any protocol revision, scoping each tool
 * call with `scopeOf`. Cheap to create, so the HTTP transport makes one per request without
 * re-registering any tool.
 */
export function createServerFor(
  registry: ToolRegistry,
  scopeOf: ScopeOf,
): ReturnType<typeof createMcpServer> {
  const separator = registry.names.form === "dotted" ? "." : "_";
  const prefix = (toolkit: string) => `${toolkit}${separator}*`;
  return createMcpServer(
    registry,
    {
      ...SERVER_INFO,
      instructions: `Tools for incident management (${prefix("Pager")}), spreadsheets (${prefix("Sheets")}) and marketing messaging (${prefix("MarketingApi")}).`,
    },
    scopeOf,
  );
}
