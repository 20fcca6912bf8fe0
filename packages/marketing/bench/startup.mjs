#!/usr/bin/env node
// What the marketing toolkit costs a server: importing the package, building its 115 tools/list
// entries and its catalogue bytes; then the first and later two-mode calls (the lazy request
// schemas and ajv). Each import is measured in a fresh process. Usage: node bench/startup.mjs [--runs 9]
import { execFileSync } from "node:child_process";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { runs: { type: "string", default: "9" } } });
const probe = `
const tDeps = performance.now();
await import("zod");
const { toMcpTool } = await import("@toolkits/core/mcp");
const t0 = performance.now();
const { marketingTools } = await import("@toolkits/marketing");
const t1 = performance.now();
const listing = marketingTools.map(toMcpTool);
const t2 = performance.now();
const bytes = listing.reduce((n, t) => n + Buffer.byteLength(JSON.stringify({ name: t.name, description: t.description, inputSchema: t.inputSchema })), 0);
const { envHost, invokeTool } = await import("@toolkits/core");
const host = envHost({ MARKETING_API_KEY: "bench-key" });
const trigger = marketingTools.find((t) => t.name === "MarketingApi.TriggerBroadcastMessage");
const t3 = performance.now();
await invokeTool(trigger, { mode: "get_request_schema" }, host);
const t4 = performance.now();
await invokeTool(trigger, { mode: "execute", broadcast_id: 1, request_body: "42" }, host);
const t5 = performance.now();
await invokeTool(trigger, { mode: "execute", broadcast_id: 1, request_body: "43" }, host);
const t6 = performance.now();
console.log(JSON.stringify({ depsMs: t0 - tDeps, importMs: t1 - t0, listMs: t2 - t1, bytes, firstSchemaMs: t4 - t3, firstValidateMs: t5 - t4, laterValidateMs: t6 - t5 }));
`;
const runs = Array.from({ length: Number(values.runs) }, () =>
  JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", probe], { encoding: "utf8" })),
);
const median = (key) =>
  runs
    .map((run) => run[key])
    .sort((a, b) => a - b)
    [Math.floor(runs.length / 2)].toFixed(1);
console.log(`@toolkits/marketing start-up (median of ${runs.length} fresh processes)`);
console.table({
  "import zod, core and the MCP SDK first (ms)": median("depsMs"),
  "then import the package (ms)": median("importMs"),
  "build 115 tools/list entries (ms)": median("listMs"),
  "catalogue bytes (name + description + input schema)": runs[0].bytes,
  "first schema-mode call: load schemas (ms)": median("firstSchemaMs"),
  "first execute: load ajv, compile, validate (ms)": median("firstValidateMs"),
  "later execute: validate (ms)": median("laterValidateMs"),
});
