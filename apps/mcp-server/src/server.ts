import { readFileSync } from "node:fs";
import type { Implementation } from "@modelcontextprotocol/server";
import { createMcpServer, type ScopeOf, type ToolRegistry } from "@toolkits/core/mcp";
import type { IconSet } from "./icons/index.js";

/** This package's version, shown by `--version` and in the MCP server info. */
export const VERSION: string = JSON.parse(
  readFileSync(new URL("../package.json", import.meta.url), "utf8"),
).version;

/** The server's identity in `initialize` and `server/discover` answers and on 2026-07-28 results. */
export const SERVER_INFO: Implementation = { name: "toolkits-mcp", version: VERSION };

/** The server's identity with its icons: URLs over HTTP, data over stdio (see `iconSet`). */
export const serverInfo = (icons: IconSet): Implementation => ({ ...SERVER_INFO, icons: icons.server });

/**
 * An MCP server answering from a prebuilt registry, for any protocol revision, scoping each tool
 * call with `scopeOf`, naming itself `info`. Cheap to create, so the HTTP transport makes one per
 * request without re-registering any tool.
 */
export function createServerFor(
  registry: ToolRegistry,
  scopeOf: ScopeOf,
  info: Implementation = SERVER_INFO,
): ReturnType<typeof createMcpServer> {
  const separator = registry.names.form === "dotted" ? "." : "_";
  const prefix = (toolkit: string) => `${toolkit}${separator}*`;
  return createMcpServer(
    registry,
    {
      ...info,
      instructions: `Tools for incident management (${prefix("Pager")}), spreadsheets (${prefix("Sheets")}) and marketing messaging (${prefix("MarketingApi")}).`,
    },
    scopeOf,
  );
}
