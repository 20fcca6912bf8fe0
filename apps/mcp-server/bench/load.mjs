#!/usr/bin/env node
// Load test of the composed server over Streamable HTTP, loopback only and bounded in time and
// count: the built binary answering from its in-process sandbox (msw), or from a zero-latency
// PagerDuty on 127.0.0.1 (`--upstream local`, which calls Pager.GetService), with CLIENTS
// concurrent clients calling one tool in a loop. Prints throughput, p50/p99 latency, failures and
// the server's resident memory idle and under load.
// Usage: node bench/load.mjs [--upstream sandbox|local] [--clients 16] [--seconds 10]
//                            [--max-calls 50000] [--tool Pager.ListServices] [--args '{"limit":5}']
import { spawn } from "node:child_process";
import { Agent, request } from "node:http";
import { parseArgs } from "node:util";
import { CLI, fixed, percentile, report, residentMb } from "./lib.mjs";
import { localPagerDuty } from "./upstream.mjs";

const { values } = parseArgs({
  options: {
    upstream: { type: "string", default: "sandbox" },
    clients: { type: "string", default: "16" },
    seconds: { type: "string", default: "10" },
    "max-calls": { type: "string", default: "50000" },
    tool: { type: "string" },
    args: { type: "string" },
  },
});
const local = values.upstream === "local" ? await localPagerDuty() : undefined;
const tool = values.tool ?? (local ? "Pager.GetService" : "Pager.ListServices");
const args = values.args ? JSON.parse(values.args) : local ? { service_id: local.serviceId } : { limit: 5 };
const clients = Number(values.clients);
const seconds = Math.min(Number(values.seconds), 60);
const maxCalls = Number(values["max-calls"]);
const GOAL_CALLS_PER_S = 1_000;

const child = spawn(
  process.execPath,
  [CLI, "--transport", "http", "--port", "0", ...(local ? [] : ["--sandbox"])],
  {
    stdio: ["ignore", "ignore", "pipe"],
    env: local
      ? { PATH: process.env.PATH, PAGER_API_URL: local.url, PAGER_ACCESS_TOKEN: "bench-pager-token" }
      : { PATH: process.env.PATH },
  },
);
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
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: tool, arguments: args } });

// node:http with keep-alive rather than fetch: the client shares the machine's two cores with the
// server, and fetch costs it several times more CPU per request.
const agent = new Agent({ keepAlive: true, maxSockets: clients });
const target = new URL(url);

function post(payload) {
  return new Promise((resolve, reject) => {
    const req = request(
      { agent, host: target.hostname, port: target.port, path: target.pathname, method: "POST", headers },
      (res) => {
        const chunks = [];
        res.on("data", (chunk) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString() }));
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

async function call(id) {
  const started = performance.now();
  const response = await post(body(id));
  const answer = JSON.parse(response.text);
  const ok = response.status === 200 && answer.result && !answer.result.isError;
  return { ok, ms: performance.now() - started, answer };
}

const warm = await call(0);
if (!warm.ok) {
  console.error("warm-up call failed:", JSON.stringify(warm.answer).slice(0, 500));
  child.kill("SIGTERM");
  await local?.close();
  process.exit(1);
}
const idleMb = residentMb(child.pid);

/** Runs CLIENTS concurrent call loops until `until` (ms on the performance clock) or the call budget. */
async function drive(until, onResult) {
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < until && issued < maxCalls) {
        issued++;
        onResult(await call(issued).catch(() => ({ ok: false, ms: 0 })));
      }
    }),
  );
}

// A second of load first, unmeasured, so the figures are of compiled code rather than the JIT warming up.
let issued = 0;
await drive(performance.now() + 1_000, () => {});
issued = 0;

const latencies = [];
const memory = [];
const sampler = setInterval(() => memory.push(residentMb(child.pid) ?? 0), 100);
let failures = 0;
const started = performance.now();
await drive(started + seconds * 1000, (result) => {
  if (result.ok) latencies.push(result.ms);
  else failures++;
});
const elapsed = (performance.now() - started) / 1000;
clearInterval(sampler);
child.kill("SIGTERM");
await local?.close();

const rate = (latencies.length + failures) / elapsed;
const where = local ? "zero-latency local upstream" : "in-process sandbox upstream (msw)";
report(`${tool} over Streamable HTTP, ${clients} clients for ${fixed(elapsed, 1)} s, ${where}`, [
  {
    measure: "throughput",
    value: `${fixed(rate)} calls/s`,
    goal: `≥ ${GOAL_CALLS_PER_S} calls/s`,
    met: rate >= GOAL_CALLS_PER_S,
  },
  { measure: "latency p50", value: `${fixed(percentile(latencies, 50), 2)} ms` },
  { measure: "latency p99", value: `${fixed(percentile(latencies, 99), 2)} ms` },
  {
    measure: "calls / failures",
    value: `${latencies.length + failures} / ${failures}`,
    goal: "0 failures",
    met: failures === 0,
  },
  { measure: "resident memory idle", value: `${fixed(idleMb, 1)} MB` },
  { measure: "resident memory under load (peak)", value: `${fixed(Math.max(...memory), 1)} MB` },
]);
