#!/usr/bin/env node
// The throughput ceiling: node:http reading a JSON-RPC POST and answering it with the GET
// Pager.GetIncident makes (PAGER_API_URL, PAGER_ACCESS_TOKEN), with no MCP layer at all: no
// validation, no tool lookup, no protocol checks. Prints {"url":…} on stderr.
import { createServer } from "node:http";
import { announce, getIncident } from "./comparators.mjs";

async function answer(req, res) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const { id, params } = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const result = await getIncident(params.arguments.incident_id);
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", id, result }));
}

const server = createServer((req, res) => {
  answer(req, res).catch(() => {
    res.writeHead(500).end();
  });
}).listen(0, "127.0.0.1", () => announce(server));
