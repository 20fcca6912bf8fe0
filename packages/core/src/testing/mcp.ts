import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Host } from "../context.js";
import { createToolRegistry, registerTools } from "../mcp/index.js";
import type { AnyToolDefinition } from "../tool.js";

/** What the model sees of one call: the error flag, the text and the structured result. */
export interface SeenResult {
  isError: boolean;
  text: string;
  data: Record<string, unknown> | undefined;
  /** Size of the text, in bytes, as it goes over the wire. */
  bytes: number;
}

/** An MCP client connected in memory to a server with `tools` served from `host`. */
export interface ToolClient {
  client: Client;
  call(name: string, args?: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<SeenResult>;
  close(): Promise<void>;
}

/**
 * Serves `tools` through core's MCP adapter and connects a client in memory. The client lists the
 * tools first, as real clients do, so it checks every structured result against its output schema.
 */
export async function connectTools(tools: readonly AnyToolDefinition[], host: Host): Promise<ToolClient> {
  const server = new McpServer({ name: "test-server", version: "0.0.0" });
  registerTools(server, createToolRegistry(tools, host));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "test-client", version: "0.0.0" });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  await client.listTools();
  return {
    client,
    async call(name, args = {}, options = {}) {
      const result = (await client.callTool({ name, arguments: args }, undefined, options)) as CallToolResult;
      const first = result.content[0];
      const text = first?.type === "text" ? first.text : "";
      return {
        isError: result.isError === true,
        text,
        data: result.structuredContent as Record<string, unknown> | undefined,
        bytes: Buffer.byteLength(text),
      };
    },
    close: () => client.close(),
  };
}
