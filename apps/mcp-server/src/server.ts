import { readFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { registerTools, type ToolRegistry } from "@toolkits/core/mcp";

/** This package's version, shown by `--version` and in the MCP `initialize` answer. */
export const VERSION: string = JSON.parse(
  readFileSync(new URL("../package.json", import.meta.url), "utf8"),
).version;

let sharedValidator: AjvJsonSchemaValidator | undefined;

/**
 * A low-level MCP server answering from a prebuilt registry. Cheap to create, so the HTTP
 * transport makes one per request without re-registering any tool.
 */
export function createMcpServer(registry: ToolRegistry): Server {
  // One validator for every server: the SDK would otherwise compile a fresh Ajv per request.
  sharedValidator ??= new AjvJsonSchemaValidator();
  const server = new Server(
    { name: "toolkits-mcp", version: VERSION },
    {
      jsonSchemaValidator: sharedValidator,
      instructions:
        "Tools for incident management (Pager.*), spreadsheets (Sheets.*) and marketing messaging (MarketingApi.*).",
    },
  );
  registerTools(server, registry);
  return server;
}
