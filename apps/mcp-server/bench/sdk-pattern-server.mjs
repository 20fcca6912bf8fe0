#!/usr/bin/env node
// The throughput comparator for "the SDK's documented stateless pattern" (docs/serving/http.md of
// the v2 SDK): createMcpHandler(factory), the factory building a fresh McpServer per request with
// the tools registered inside it, mounted on node:http with toNodeHandler behind the documented
// Host and Origin guards. 138 tools, like ours: 137 small ones and Pager_GetIncident, which makes
// the GET Pager.GetIncident makes (PAGER_API_URL, PAGER_ACCESS_TOKEN). Prints {"url":…} on stderr.
import { createServer } from "node:http";
import {
  localhostHostValidation,
  localhostOriginValidation,
  toNodeHandler,
} from "@modelcontextprotocol/node";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { announce, registerGetIncident, registerSmallTools } from "./comparators.mjs";

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: "sdk-pattern", version: "0.0.0" });
  registerSmallTools(server, 137);
  registerGetIncident(server, "Pager_GetIncident");
  return server;
});
const nodeHandler = toNodeHandler(handler);
const validateHost = localhostHostValidation();
const validateOrigin = localhostOriginValidation();
const server = createServer((req, res) => {
  if (!validateHost(req, res) || !validateOrigin(req, res)) return;
  void nodeHandler(req, res);
}).listen(0, "127.0.0.1", () => announce(server));
