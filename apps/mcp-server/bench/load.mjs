#!/usr/bin/env node
// Load test of the composed server over Streamable HTTP, loopback only and bounded in time and
// count: the built binary answering from its in-process sandbox (msw), or from a zero-latency
// PagerDuty on 127.0.0.1 serving PagerDuty's own example incident (`--upstream local`, which calls
// Pager.GetIncident), with CLIENTS concurrent clients calling one tool in a loop. Prints
// throughput, p50/p99 latency, failures and the server's resident memory idle and under load.
// With the local upstream and Pager.GetIncident it measures, in the same run, ours in both protocol
// revisions (2025-11-25 and 2026-07-28) and two comparators making the same GET: the SDK's
// documented stateless pattern (bench/sdk-pattern-server.mjs) and a bare node:http JSON-RPC
// handler (bench/bare-http-server.mjs). All servers are started up front and loaded one at a time
// in alternating rounds (--rounds) whose order turns and reverses (lib.mjs roundOrder), so drift on
// the machine falls on all alike; each ratio is the median of the rounds' ratios.
// Usage: node bench/load.mjs [--upstream sandbox|local] [--clients 16] [--seconds 10] [--rounds 20]
//                            [--max-calls 50000] [--tool Pager.ListServices] [--args '{"limit":5}']
//                            [--protocol 2025-11-25|2026-07-28]   (without comparators)
// --seconds and --max-calls are per measured server and revision, spread over the rounds.
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { loadClients, startServer } from "./http-load.mjs";
import {
  CLI,
  cpuMs,
  fixed,
  median,
  percentile,
  ratioFigure,
  report,
  residentMb,
  roundOrder,
  stopChild,
} from "./lib.mjs";
import { localPagerDuty } from "./upstream.mjs";

const { values } = parseArgs({
  options: {
    upstream: { type: "string", default: "sandbox" },
    clients: { type: "string", default: "16" },
    seconds: { type: "string", default: "10" },
    rounds: { type: "string", default: "20" },
    "max-calls": { type: "string", default: "50000" },
    tool: { type: "string" },
    args: { type: "string" },
    protocol: { type: "string", default: "2025-11-25" },
  },
});
const local = values.upstream === "local" ? await localPagerDuty() : undefined;
const tool = values.tool ?? (local ? "Pager.GetIncident" : "Pager.ListServices");
const args = values.args ? JSON.parse(values.args) : local ? { incident_id: local.incidentId } : { limit: 5 };
const clients = Number(values.clients);
const seconds = Math.min(Number(values.seconds), 60);
const rounds = Math.max(1, Number(values.rounds));
const maxCalls = Number(values["max-calls"]);
const GOAL_CALLS_PER_S = 1_000;
const GOAL_VS_PATTERN = 4;
// The ratios are judged on Node 24, the line the image runs (`bench:node-lines`).
const GOAL_VS_BARE = 0.6;
const GOAL_MODERN_VS_2025 = 0.95;
// The comparators only know the one call they make, Pager.GetIncident's GET on the local upstream.
const compare = local !== undefined && tool === "Pager.GetIncident";
const bench = (script) => fileURLToPath(new URL(script, import.meta.url));
const env = local
  ? { PATH: process.env.PATH, PAGER_API_URL: local.url, PAGER_ACCESS_TOKEN: "bench-pager-token" }
  : { PATH: process.env.PATH };
const load = loadClients(clients);

/** What is measured: `spec` (tool, arguments, protocol revision) sent to `server`. */
async function targets() {
  const ours = await startServer(
    [CLI, "--transport", "http", "--port", "0", "--log-level", "info", ...(local ? [] : ["--sandbox"])],
    env,
  );
  const call = (protocol, name = tool) => ({ name, args, protocol });
  if (!compare)
    return [{ key: "ours", label: `toolkits-mcp (${tool})`, server: ours, spec: call(values.protocol) }];
  const pattern = await startServer([bench("sdk-pattern-server.mjs")], env);
  const bare = await startServer([bench("bare-http-server.mjs")], env);
  return [
    { key: "ours", label: `toolkits-mcp (${tool}), MCP 2025-11-25`, server: ours, spec: call("2025-11-25") },
    {
      key: "modern",
      label: `toolkits-mcp (${tool}), MCP 2026-07-28`,
      server: ours,
      spec: call("2026-07-28"),
    },
    {
      key: "pattern",
      label: "SDK documented stateless pattern (fresh McpServer, 138 tools, per request)",
      server: pattern,
      spec: call("2025-11-25", "Pager_GetIncident"),
    },
    { key: "bare", label: "bare node:http JSON-RPC handler", server: bare, spec: call("2025-11-25") },
  ];
}

/**
 * Checks one call answers (with the incident, when comparing), records the server's idle memory,
 * then loads it for a second unmeasured so the JIT has warmed up.
 */
async function warmUp(target) {
  const { server, spec } = target;
  const first = await load.call(server.url, spec, 0);
  const answer = JSON.stringify(first.answer);
  if (!first.ok || (compare && !answer.includes(local.incidentId)))
    throw new Error(`${target.label}: warm-up call failed: ${answer.slice(0, 500)}`);
  target.idleMb = residentMb(server.child.pid);
  await load.drive(server.url, spec, { until: performance.now() + 1_000, maxCalls, onResult: () => {} });
  Object.assign(target, { rates: [], latencies: [], failures: 0, calls: 0, elapsed: 0, peakMb: 0, cpuMs: 0 });
}

/** One round's load on `target`: a share of the seconds and the call budget. */
async function loadRound(target) {
  const { server, spec } = target;
  const sampler = setInterval(() => {
    target.peakMb = Math.max(target.peakMb, residentMb(server.child.pid) ?? 0);
  }, 100);
  let calls = 0;
  const cpuBefore = cpuMs(server.child.pid) ?? Number.NaN;
  const started = performance.now();
  await load.drive(server.url, spec, {
    until: started + (seconds * 1000) / rounds,
    maxCalls: maxCalls / rounds,
    onResult: (result) => {
      calls++;
      if (result.ok) target.latencies.push(result.ms);
      else target.failures++;
    },
  });
  const elapsed = (performance.now() - started) / 1000;
  clearInterval(sampler);
  target.cpuMs += (cpuMs(server.child.pid) ?? Number.NaN) - cpuBefore;
  Object.assign(target, { calls: target.calls + calls, elapsed: target.elapsed + elapsed });
  target.rates.push(calls / elapsed);
}

function reportOurs(ours) {
  const where = local
    ? `zero-latency local upstream serving a ${local.incidentBytes}-byte incident`
    : "in-process sandbox upstream (msw)";
  const rate = ours.calls / ours.elapsed;
  report(
    `${tool} over Streamable HTTP (MCP ${ours.spec.protocol}), ${clients} clients for ${fixed(ours.elapsed, 1)} s in ${rounds} rounds, ${where}`,
    [
      {
        measure: "throughput",
        value: `${fixed(rate)} calls/s`,
        goal: `≥ ${GOAL_CALLS_PER_S} calls/s`,
        met: rate >= GOAL_CALLS_PER_S,
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

function reportComparison(measured) {
  report(
    `Throughput next to references making the same GET, same run: ${clients} clients, ${rounds} alternating rounds of ${fixed(seconds / rounds, 1)} s each, one server loaded at a time`,
    measured.map((target) => ({
      measure: target.label,
      "calls/s": fixed(target.calls / target.elapsed),
      "p50 ms": fixed(percentile(target.latencies, 50), 2),
      "p99 ms": fixed(percentile(target.latencies, 99), 2),
      "calls / failures": `${target.calls} / ${target.failures}`,
      // CPU time hardly moves with what else the machine runs, unlike calls/s.
      "server CPU µs/call": fixed((target.cpuMs * 1000) / target.calls),
      "peak MB": fixed(target.peakMb, 1),
    })),
  );
  const by = Object.fromEntries(measured.map((target) => [target.key, target]));
  /** Figure `a ÷ b` from the rounds' rates; not met if either side had a failure. */
  const figure = (measure, a, b, goal) =>
    ratioFigure(measure, {
      ours: `${fixed(median(by[a].rates))} calls/s`,
      reference: `${fixed(median(by[b].rates))} calls/s`,
      ratios: by[a].rates.map((rate, round) => rate / by[b].rates[round]),
      goal,
      valid: by[a].failures === 0 && by[b].failures === 0,
    });
  report(
    "Goal figures over HTTP, same run (calls/s: median of the rounds; ratio: median of the rounds' ratios)",
    [
      figure("HTTP calls/s at MCP 2025-11-25, ours ÷ bare node:http JSON-RPC handler", "ours", "bare", {
        atLeast: GOAL_VS_BARE,
      }),
      figure("MCP 2026-07-28 calls/s ÷ MCP 2025-11-25 calls/s (ours)", "modern", "ours", {
        atLeast: GOAL_MODERN_VS_2025,
      }),
      figure("HTTP calls/s at MCP 2025-11-25, ours ÷ SDK documented stateless pattern", "ours", "pattern", {
        atLeast: GOAL_VS_PATTERN,
      }),
    ],
  );
}

let measured = [];
try {
  measured = await targets();
  for (const target of measured) await warmUp(target);
  for (let round = 0; round < rounds; round++) {
    for (const target of roundOrder(measured, round)) await loadRound(target);
  }
  reportOurs(measured[0]);
  if (compare) reportComparison(measured);
} catch (error) {
  console.error(error.message);
  process.exitCode = 1;
} finally {
  await Promise.all([...new Set(measured.map((target) => target.server.child))].map(stopChild));
  load.close();
  await local?.close();
}
