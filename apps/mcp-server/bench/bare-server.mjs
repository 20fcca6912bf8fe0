#!/usr/bin/env node
// The reference point for cold start: a bare MCP SDK (v2) server with 138 small tools (a zod string
// parameter each) over stdio, nothing else loaded.
import { McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { registerSmallTools } from "./comparators.mjs";

const server = new McpServer({ name: "bare", version: "0.0.0" });
registerSmallTools(server, 138);
await server.connect(new StdioServerTransport());
process.stdin.once("end", () => process.exit(0));
