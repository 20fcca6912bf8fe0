import { readFileSync } from "node:fs";
import { createMcpServer, type ToolRegistry } from "@toolkits/core/mcp";

/** This package's version, shown by `--version` and in the MCP server info. */
export const VERSION: string = JSON.parse(
  readFileSync(new URL("../package.json", import.meta.url), "utf8"),
).version;

/**
 * A low-level MCP server answering from a prebuilt registry, for any protocol revision. Cheap to
 * create, so the HTTP transport makes one per request without re-registering any tool.
 */
export function createServerFor(registry: ToolRegistry): ReturnType<typeof createMcpServer> {
  const separator = registry.names.form === "dotted" ? "." : "_";
  const prefix = (toolkit: string) => `${toolkit}${separator}*`;
  return createMcpServer(registry, {
    name: "toolkits-mcp",
    version: VERSION,
    instructions: `Tools for incident management (${prefix("Pager")}), spreadsheets (${prefix("Sheets")}) and marketing messaging (${prefix("MarketingApi")}).`,
  });
}
