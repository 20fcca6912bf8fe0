#!/usr/bin/env node
// The reference point for cold start: a bare MCP SDK server with 138 small tools (a zod string
// parameter each) over stdio, nothing else loaded.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "bare", version: "0.0.0" });
for (let i = 0; i < 138; i++) {
  server.registerTool(
    `Bare.Tool${i}`,
    { description: `Does thing ${i}.`, inputSchema: { id: z.string().describe("An id") } },
    async ({ id }) => ({ content: [{ type: "text", text: id }] }),
  );
}
await server.connect(new StdioServerTransport());
process.stdin.once("end", () => process.exit(0));
