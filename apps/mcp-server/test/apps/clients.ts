import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioV2 } from "@modelcontextprotocol/client/stdio";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as StdioV1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UI_EXTENSION, VIEW_MIME_TYPE } from "@toolkits/apps";
import type { Generation } from "../clients.js";
import { CLI } from "../spawn.js";

/** The capabilities of a client rendering MCP Apps views, as the extension says to declare them. */
export const RENDERS_VIEWS = { extensions: { [UI_EXTENSION]: { mimeTypes: [VIEW_MIME_TYPE] } } };

/** A listed tool with what MCP Apps adds to it. */
export interface AppsTool {
  name: string;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean };
  _meta?: { ui?: { resourceUri: string; visibility: string[] }; "ui/resourceUri"?: string };
  [key: string]: unknown;
}

/** What the apps tests ask of a client of either generation. */
export interface AppsClient {
  tools(): Promise<AppsTool[]>;
  resources(): Promise<{ uri: string; mimeType?: string }[]>;
  read(
    uri: string,
  ): Promise<{ uri: string; mimeType?: string; text?: string; _meta?: Record<string, unknown> }[]>;
  call(
    name: string,
    args?: Record<string, unknown>,
  ): Promise<{ isError?: boolean; structuredContent?: unknown; content?: unknown }>;
  serverExtensions(): Record<string, unknown> | undefined;
  close(): Promise<void>;
}

type Where = { stdio: string[] } | { url: string; headers?: Record<string, string> };

/**
 * A client of `generation` (v1 speaks 2025-11-25, v2 is pinned to 2026-07-28) declaring
 * `capabilities`, over stdio (the built binary with these arguments) or HTTP (a server's /mcp URL).
 */
export async function appsClient(
  generation: Generation,
  where: Where,
  capabilities: object = {},
): Promise<AppsClient> {
  const info = { name: `apps-${generation}`, version: "0.0.0" };
  const stdio = "stdio" in where && {
    command: process.execPath,
    args: [CLI, ...where.stdio],
    env: { PATH: process.env.PATH ?? "", XDG_CONFIG_HOME: "/nonexistent-config" },
    stderr: "ignore" as const,
  };
  const http =
    "url" in where && ([new URL(where.url), { requestInit: { headers: where.headers ?? {} } }] as const);
  const client =
    generation === "v1"
      ? new ClientV1(info, { capabilities })
      : new ClientV2(info, { capabilities, versionNegotiation: { mode: { pin: "2026-07-28" } } });
  const transport =
    generation === "v1"
      ? stdio
        ? new StdioV1(stdio)
        : new HttpV1(...(http as [URL, object]))
      : stdio
        ? new StdioV2(stdio)
        : new HttpV2(...(http as [URL, object]));
  // Both generations' clients take both generations' transports of the same kind.
  await (client as ClientV1).connect(transport as StdioV1);
  const c = client as ClientV1;
  return {
    tools: async () => (await c.listTools()).tools as AppsTool[],
    resources: async () => (await c.listResources()).resources,
    read: async (uri) => (await c.readResource({ uri })).contents as Awaited<ReturnType<AppsClient["read"]>>,
    call: async (name, args = {}) =>
      (await c.callTool({ name, arguments: args })) as Awaited<ReturnType<AppsClient["call"]>>,
    serverExtensions: () =>
      (c.getServerCapabilities() as { extensions?: Record<string, unknown> } | undefined)?.extensions,
    close: () => c.close(),
  };
}
