import { readFileSync } from "node:fs";
import { EXTENSION_ID, RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/server";
import type { Implementation } from "@modelcontextprotocol/server";
import { createMcpServer, type RegistryFor, type ScopeOf, type ToolRegistry } from "@toolkits/core/mcp";
import type { IconSet } from "./icons/index.js";

/** This package's version, shown by `--version` and in the MCP server info. */
export const VERSION: string = JSON.parse(
  readFileSync(new URL("../package.json", import.meta.url), "utf8"),
).version;

/** The server's identity in `initialize` and `server/discover` answers and on 2026-07-28 results. */
export const SERVER_INFO: Implementation = { name: "toolkits-mcp", version: VERSION };

/** The server's identity with its icons: URLs over HTTP, data over stdio (see `iconSet`). */
export const serverInfo = (icons: IconSet): Implementation => ({ ...SERVER_INFO, icons: icons.server });

/** What the server declares of MCP Apps when it serves views: the one MIME type of its views. */
const APPS_EXTENSION = { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } };

/** How `createServerFor` serves besides its registry. */
export interface ServingOptions {
  /** `--apps on`: declare the MCP Apps extension; the lists, which then differ by client, are cached privately only. */
  apps?: boolean;
  /** The registry of each request, where one server answers requests of several views (stdio). */
  perRequest?: Extract<RegistryFor, (...args: never[]) => unknown>;
  /** How the server names itself (with its icons); default SERVER_INFO. */
  info?: Implementation;
}

/**
 * An MCP server answering from a prebuilt registry (or, with `perRequest`, each request's), for
 * any protocol revision, scoping each tool call with `scopeOf`. Cheap to create, so the HTTP
 * transport makes one per request without re-registering any tool.
 */
export function createServerFor(
  registry: ToolRegistry,
  scopeOf: ScopeOf,
  { apps = false, perRequest, info = SERVER_INFO }: ServingOptions = {},
): ReturnType<typeof createMcpServer> {
  const separator = registry.names.form === "dotted" ? "." : "_";
  const prefix = (toolkit: string) => `${toolkit}${separator}*`;
  return createMcpServer(
    perRequest ?? registry,
    {
      ...info,
      instructions: `Tools for incident management (${prefix("Pager")}), spreadsheets (${prefix("Sheets")}) and marketing messaging (${prefix("MarketingApi")}).`,
      ...(apps && { extensions: APPS_EXTENSION, listsVary: true }),
    },
    scopeOf,
  );
}
