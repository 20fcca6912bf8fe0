#!/usr/bin/env node
// The reference point for per-call cost over stdio: a bare MCP SDK (v2) server whose one tool makes
// the GET Pager.GetIncident makes (PAGER_API_URL, PAGER_ACCESS_TOKEN) and returns the JSON as text.
import { McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { registerGetIncident } from "./comparators.mjs";

const server = new McpServer({ name: "bare-get", version: "0.0.0" });
registerGetIncident(server, "Bare_GetIncident");
await server.connect(new StdioServerTransport());
process.stdin.once("end", () => process.exit(0));
