// The clients' own config formats, as JSON schemas written from their documentation, for checking
// that an install link gives each client a config it takes, naming the right URL.
import { Ajv } from "ajv";
import addFormats from "ajv-formats";

const headers = { type: "object", additionalProperties: { type: "string" } };

/** VS Code's `.vscode/mcp.json` (code.visualstudio.com/docs/copilot/reference/mcp-configuration), HTTP servers. */
const VSCODE_MCP_JSON = {
  type: "object",
  required: ["servers"],
  additionalProperties: false,
  properties: {
    servers: {
      type: "object",
      minProperties: 1,
      additionalProperties: {
        type: "object",
        required: ["type", "url"],
        additionalProperties: false,
        properties: { type: { enum: ["http", "sse"] }, url: { type: "string", format: "uri" }, headers },
      },
    },
    inputs: {
      type: "array",
      items: {
        type: "object",
        required: ["id", "type"],
        additionalProperties: false,
        properties: {
          id: { type: "string", pattern: "^[\\w-]+$" },
          type: { enum: ["promptString", "pickString"] },
          description: { type: "string" },
          password: { type: "boolean" },
        },
      },
    },
  },
};

/** Cursor's `mcp.json` (cursor.com/docs/mcp), remote servers. */
const CURSOR_MCP_JSON = {
  type: "object",
  required: ["mcpServers"],
  additionalProperties: false,
  properties: {
    mcpServers: {
      type: "object",
      minProperties: 1,
      additionalProperties: {
        type: "object",
        required: ["url"],
        additionalProperties: false,
        properties: { url: { type: "string", format: "uri" }, headers },
      },
    },
  },
};

const ajv = new Ajv({ allErrors: true });
addFormats.default(ajv);
const validVscode = ajv.compile(VSCODE_MCP_JSON);
const validCursor = ajv.compile(CURSOR_MCP_JSON);

/** What an install link configures: the file the client writes, and the URL its server entry names. */
export interface Installed {
  file: Record<string, unknown>;
  name: string;
  url: string;
}

/**
 * The `.vscode/mcp.json` a `vscode:mcp/install?<config>` link makes (the config is a server entry
 * with its `name`, and the `inputs` it refers to).
 * @throws Error when the link or the file it makes is not VS Code's.
 */
export function vscodeInstall(href: string): Installed {
  const prefix = "vscode:mcp/install?";
  if (!href.startsWith(prefix)) throw new Error(`not a VS Code install link: ${href}`);
  const { name, inputs, ...server } = JSON.parse(decodeURIComponent(href.slice(prefix.length)));
  const file = { servers: { [name]: server }, ...(inputs && { inputs }) };
  if (!validVscode(file)) throw new Error(`not a VS Code mcp.json: ${ajv.errorsText(validVscode.errors)}`);
  return { file, name, url: server.url };
}

/**
 * The `mcp.json` a `cursor://anysphere.cursor-deeplink/mcp/install?name=…&config=<base64>` link
 * makes. @throws Error when the link or the file it makes is not Cursor's.
 */
export function cursorInstall(href: string): Installed {
  const link = new URL(href);
  if (
    link.protocol !== "cursor:" ||
    link.host !== "anysphere.cursor-deeplink" ||
    link.pathname !== "/mcp/install"
  )
    throw new Error(`not a Cursor install link: ${href}`);
  const name = link.searchParams.get("name") ?? "";
  const server = JSON.parse(Buffer.from(link.searchParams.get("config") ?? "", "base64").toString("utf8"));
  const file = { mcpServers: { [name]: server } };
  if (!validCursor(file)) throw new Error(`not a Cursor mcp.json: ${ajv.errorsText(validCursor.errors)}`);
  return { file, name, url: server.url };
}
