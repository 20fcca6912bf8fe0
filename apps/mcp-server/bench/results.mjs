#!/usr/bin/env node
// Bytes of typical list results next to the upstream's raw payload: each tool runs through the
// MCP adapter (as the server does, results capped at 100,000 bytes) against its toolkit's sandbox,
// and msw counts the bytes of every answer the fake upstream gave for that call.
import { envHost } from "@toolkits/core";
import { createToolRegistry } from "@toolkits/core/mcp";
import { marketingToolkit } from "@toolkits/marketing";
import { pagerToolkit } from "@toolkits/pager";
import { sheetsToolkit } from "@toolkits/sheets";
import { setupServer } from "msw/node";
import { fixed, report } from "./lib.mjs";

const SERVER_CAP = 100_000;
const CASES = [
  { what: "10 incidents", tool: "Pager.ListIncidents", args: { limit: 10 }, goal: 0.25 },
  { what: "10 services", tool: "Pager.ListServices", args: { limit: 10 } },
  { what: "on-call entries now", tool: "Pager.ListOnCalls", args: {} },
  {
    what: "a page of segment members",
    tool: "MarketingApi.GetSegmentMembers",
    args: { segment_identifier: 7 },
  },
  { what: "a sheet read", tool: "Sheets.GetSpreadsheet", args: { spreadsheet_id: "quarterly-report-0" } },
  { what: "a spreadsheet search", tool: "Sheets.SearchSpreadsheets", args: {} },
];

const toolkits = [pagerToolkit, sheetsToolkit, marketingToolkit];
const sandboxes = await Promise.all(toolkits.map((kit) => kit.sandbox()));
const server = setupServer(...sandboxes.flatMap((box) => box.handlers));
let reads = [];
server.events.on("response:mocked", ({ response }) => {
  reads.push(
    response
      .clone()
      .text()
      .then((text) => Buffer.byteLength(text)),
  );
});
server.listen({ onUnhandledRequest: "error" });
const pick = (key) => Object.assign({}, ...sandboxes.map((box) => box[key] ?? {}));
const secrets = pick("secrets");
const tokens = pick("tokens");
const host = envHost(
  {},
  {
    secrets: (name) => secrets[name],
    tokens: (provider) => tokens[provider],
    settings: (name) => pick("settings")[name],
    maxResultBytes: SERVER_CAP,
  },
);
const registry = createToolRegistry(
  toolkits.flatMap((kit) => kit.tools),
  host,
);
const extra = { signal: new AbortController().signal, sendNotification: async () => {} };

const rows = [];
for (const { what, tool, args, goal } of CASES) {
  reads = [];
  const result = await registry.call(tool, args, extra);
  await new Promise((resolve) => setImmediate(resolve)); // msw reports the last answer after it is sent
  const rawBytes = (await Promise.all(reads)).reduce((sum, bytes) => sum + bytes, 0);
  if (result.isError) throw new Error(`${tool}: ${result.content[0].text}`);
  const bytes = Buffer.byteLength(result.content[0].text);
  rows.push({
    measure: `${what} (${tool})`,
    "raw upstream bytes": rawBytes,
    "result bytes": bytes,
    ratio: fixed(bytes / rawBytes, 2),
    goal: goal === undefined ? undefined : `≤ ${goal}`,
    met: goal === undefined ? undefined : bytes / rawBytes <= goal,
  });
}
server.close();
report(
  "Result size next to the upstream's raw payload (result text; structuredContent carries the same JSON)",
  rows,
);
