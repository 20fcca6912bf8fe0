#!/usr/bin/env node
// Load test of the composed server over Streamable HTTP, loopback only and bounded in time and count.
// Starts the built binary with --sandbox, then CLIENTS concurrent clients call one tool in a loop.
// Prints throughput, p50/p99 latency and failures. Usage:
//   node bench/load.mjs [--clients 16] [--seconds 10] [--max-calls 50000] [--tool Pager.ListServices] [--args '{"limit":5}']
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    clients: { type: "string", default: "16" },
    seconds: { type: "string", default: "10" },
    "max-calls": { type: "string", default: "50000" },
    tool: { type: "string", default: "Pager.ListServices" },
    args: { type: "string", default: '{"limit":5}' },
  },
});
const clients = Number(values.clients);
const seconds = Math.min(Number(values.seconds), 60);
const maxCalls = Number(values["max-calls"]);

const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const child = spawn(process.execPath, [cli, "--transport", "http", "--port", "0", "--sandbox"], {
  stdio: ["ignore", "ignore", "pipe"],
});
const url = await new Promise((resolve, reject) => {
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
    const match = /"url":"([^"]+)"/.exec(stderr);
    if (match) resolve(match[1]);
  });
  child.once("exit", (code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
});

const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const body = (id) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: values.tool, arguments: JSON.parse(values.args) },
  });

async function call(id) {
  const started = performance.now();
  const response = await fetch(url, { method: "POST", headers, body: body(id) });
  const answer = await response.json();
  const ok = response.ok && answer.result && !answer.result.isError;
  return { ok, ms: performance.now() - started, answer };
}

const warm = await call(0);
if (!warm.ok) {
  console.error("warm-up call failed:", JSON.stringify(warm.answer).slice(0, 500));
  child.kill("SIGTERM");
  process.exit(1);
}

const latencies = [];
let failures = 0;
let issued = 0;
const deadline = performance.now() + seconds * 1000;
const started = performance.now();
await Promise.all(
  Array.from({ length: clients }, async () => {
    while (performance.now() < deadline && issued < maxCalls) {
      issued++;
      const result = await call(issued).catch(() => ({ ok: false, ms: 0 }));
      if (result.ok) latencies.push(result.ms);
      else failures++;
    }
  }),
);
const elapsed = (performance.now() - started) / 1000;
child.kill("SIGTERM");

latencies.sort((a, b) => a - b);
const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
console.table({
  [`${values.tool} over HTTP`]: {
    clients,
    calls: latencies.length + failures,
    "calls/s": Math.round((latencies.length + failures) / elapsed),
    "p50 ms": pct(50).toFixed(2),
    "p99 ms": pct(99).toFixed(2),
    failures,
  },
});
