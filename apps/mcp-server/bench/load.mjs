#!/usr/bin/env node
// Load test of the composed server over Streamable HTTP, loopback only and bounded in time and
// count: the built binary answering from its in-process sandbox (msw), or from a zero-latency
// PagerDuty on 127.0.0.1 (`--upstream local`, which calls Pager.GetService), with CLIENTS
// concurrent clients calling one tool in a loop. Prints throughput, p50/p99 latency, failures and
// the server's resident memory idle and under load. With the local upstream and Pager.GetService
// it then drives two comparators making the same GET, one after the other, with the same clients:
// the SDK's documented stateless pattern (bench/sdk-pattern-server.mjs) and a bare node:http
// JSON-RPC handler (bench/bare-http-server.mjs), and prints ours against each.
// Usage: node bench/load.mjs [--upstream sandbox|local] [--clients 16] [--seconds 10]
//                            [--max-calls 50000] [--tool Pager.ListServices] [--args '{"limit":5}']
//                            [--protocol 2025-11-25|2026-07-28]
import { spawn } from "node:child_process";
import { Agent, request } from "node:http";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { CLI, fixed, percentile, report, residentMb, stopChild } from "./lib.mjs";
import { localPagerDuty } from "./upstream.mjs";

const { values } = parseArgs({
  options: {
    upstream: { type: "string", default: "sandbox" },
    clients: { type: "string", default: "16" },
    seconds: { type: "string", default: "10" },
    "max-calls": { type: "string", default: "50000" },
    tool: { type: "string" },
    args: { type: "string" },
    protocol: { type: "string", default: "2025-11-25" },
  },
});
const local = values.upstream === "local" ? await localPagerDuty() : undefined;
const tool = values.tool ?? (local ? "Pager.GetService" : "Pager.ListServices");
const args = values.args ? JSON.parse(values.args) : local ? { service_id: local.serviceId } : { limit: 5 };
const clients = Number(values.clients);
const seconds = Math.min(Number(values.seconds), 60);
const maxCalls = Number(values["max-calls"]);
const GOAL_CALLS_PER_S = 1_000;
const GOAL_VS_PATTERN = 4;
const GOAL_VS_BARE = 0.3;
// The comparators only know the one call they make, Pager.GetService's GET on the local upstream.
const compare = local !== undefined && tool === "Pager.GetService";
const bench = (script) => fileURLToPath(new URL(script, import.meta.url));

const env = local
  ? { PATH: process.env.PATH, PAGER_API_URL: local.url, PAGER_ACCESS_TOKEN: "bench-pager-token" }
  : { PATH: process.env.PATH };

/** Starts `node …argv` and resolves with the child and the URL it logs on stderr as `"url":"…"`. */
async function start(argv) {
  const child = spawn(process.execPath, argv, { stdio: ["ignore", "ignore", "pipe"], env });
  const url = await new Promise((resolve, reject) => {
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      const match = /"url":"([^"]+)"/.exec(stderr);
      if (match) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
  });
  return { child, url };
}

// Every server gets the same headers: the SDK's transport, which ours is built on too, answers 406
// unless the client accepts both JSON and SSE; the bare handler ignores them.
const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
// A 2026-07-28 call carries its revision and the client's capabilities in every request, and
// names its method and tool in headers too.
const modern = values.protocol === "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};
const headersFor = (name) =>
  modern
    ? { ...headers, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": name }
    : headers;
const body = (name, id) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: args, ...(modern ? { _meta: META } : {}) },
  });

// node:http with keep-alive rather than fetch: the client shares the machine's two cores with the
// server, and fetch costs it several times more CPU per request.
const agent = new Agent({ keepAlive: true, maxSockets: clients });

function post(target, payload, sent) {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: "POST",
        headers: sent,
      },
      (res) => {
        const chunks = [];
        res.on("data", (chunk) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode,
            sse: String(res.headers["content-type"]).startsWith("text/event-stream"),
            text: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** The JSON-RPC answer in a response: the body, or the last SSE event's data (the SDK's transport streams). */
function rpcAnswer({ sse, text }) {
  if (!sse) return JSON.parse(text);
  const data = text.split("\n").findLast((line) => line.startsWith("data:"));
  return JSON.parse(data?.slice("data:".length) ?? "null");
}

async function call(target, name, id) {
  const started = performance.now();
  const response = await post(target, body(name, id), headersFor(name));
  const answer = rpcAnswer(response);
  const ok = response.status === 200 && answer?.result && !answer.result.isError;
  return { ok, ms: performance.now() - started, answer };
}

/** Runs CLIENTS concurrent call loops until `until` (ms on the performance clock) or the call budget. */
async function drive(target, name, until, onResult) {
  let issued = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < until && issued < maxCalls) {
        issued++;
        onResult(await call(target, name, issued).catch(() => ({ ok: false, ms: 0 })));
      }
    }),
  );
}

/** Loads a started server with tool `name`: throughput, latencies, failures and memory. */
async function measure({ child, url }, name) {
  const target = new URL(url);
  const warm = await call(target, name, 0);
  if (!warm.ok) throw new Error(`warm-up call failed: ${JSON.stringify(warm.answer).slice(0, 500)}`);
  const idleMb = residentMb(child.pid);
  // A second of load first, unmeasured, so the figures are of compiled code rather than the JIT warming up.
  await drive(target, name, performance.now() + 1_000, () => {});

  const latencies = [];
  const memory = [];
  const sampler = setInterval(() => memory.push(residentMb(child.pid) ?? 0), 100);
  let failures = 0;
  const started = performance.now();
  await drive(target, name, started + seconds * 1000, (result) => {
    if (result.ok) latencies.push(result.ms);
    else failures++;
  });
  const elapsed = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const calls = latencies.length + failures;
  return { rate: calls / elapsed, elapsed, calls, failures, latencies, idleMb, peakMb: Math.max(...memory) };
}

/** Starts `node …argv`, measures it with tool `name` and stops it, whatever happens. */
async function run(argv, name) {
  const server = await start(argv);
  try {
    return await measure(server, name);
  } finally {
    // Waits for it to exit, so no two servers are ever under load at once.
    await stopChild(server.child);
  }
}

function reportOurs(ours) {
  const where = local ? "zero-latency local upstream" : "in-process sandbox upstream (msw)";
  report(
    `${tool} over Streamable HTTP (MCP ${values.protocol}), ${clients} clients for ${fixed(ours.elapsed, 1)} s, ${where}`,
    [
      {
        measure: "throughput",
        value: `${fixed(ours.rate)} calls/s`,
        goal: `≥ ${GOAL_CALLS_PER_S} calls/s`,
        met: ours.rate >= GOAL_CALLS_PER_S,
      },
      { measure: "latency p50", value: `${fixed(percentile(ours.latencies, 50), 2)} ms` },
      { measure: "latency p99", value: `${fixed(percentile(ours.latencies, 99), 2)} ms` },
      {
        measure: "calls / failures",
        value: `${ours.calls} / ${ours.failures}`,
        goal: "0 failures",
        met: ours.failures === 0,
      },
      { measure: "resident memory idle", value: `${fixed(ours.idleMb, 1)} MB` },
      { measure: "resident memory under load (peak)", value: `${fixed(ours.peakMb, 1)} MB` },
    ],
  );
}

/** One row of the comparison; with a goal, ours ÷ this must reach it, with no failures on either side. */
function comparisonRow(measure, figures, ours, goal) {
  const ratio = ours.rate / figures.rate;
  return {
    measure,
    "calls/s": fixed(figures.rate),
    "p50 ms": fixed(percentile(figures.latencies, 50), 2),
    "p99 ms": fixed(percentile(figures.latencies, 99), 2),
    "calls / failures": `${figures.calls} / ${figures.failures}`,
    "peak MB": fixed(figures.peakMb, 1),
    "ours ÷ this": goal === undefined ? "" : `${fixed(ratio, 2)}×`,
    goal: goal === undefined ? undefined : `≥ ${goal}×`,
    met: goal === undefined ? undefined : ratio >= goal && figures.failures === 0 && ours.failures === 0,
  };
}

async function main() {
  // Its URL is in its start line, logged at info.
  const http = [CLI, "--transport", "http", "--port", "0", "--log-level", "info"];
  const ours = await run([...http, ...(local ? [] : ["--sandbox"])], tool);
  reportOurs(ours);
  if (!compare) return;
  const pattern = await run([bench("sdk-pattern-server.mjs")], "Pager_GetService");
  const bare = await run([bench("bare-http-server.mjs")], tool);
  report(
    `Throughput next to comparators making the same GET, ${clients} clients for ${seconds} s each, one server at a time`,
    [
      comparisonRow(`toolkits-mcp (${tool})`, ours, ours),
      comparisonRow(
        "SDK documented stateless pattern (fresh McpServer, 138 tools, per request)",
        pattern,
        ours,
        GOAL_VS_PATTERN,
      ),
      comparisonRow("bare node:http JSON-RPC handler", bare, ours, GOAL_VS_BARE),
    ],
  );
}

try {
  await main();
} catch (error) {
  console.error(error.message);
  process.exitCode = 1;
} finally {
  agent.destroy();
  await local?.close();
}
