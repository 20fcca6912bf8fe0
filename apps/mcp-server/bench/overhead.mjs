#!/usr/bin/env node
// Per-call overhead: Pager.GetService through the built server over stdio, against a zero-latency
// PagerDuty on 127.0.0.1 (PAGER_API_URL), next to the same GET sent directly from this process.
// Rounds alternate between the two so drift affects both alike.
// Usage: node bench/overhead.mjs [--calls 3000]
import { parseArgs } from "node:util";
import { fixed, percentile, report, stdioServer } from "./lib.mjs";
import { localPagerDuty } from "./upstream.mjs";

const { values } = parseArgs({ options: { calls: { type: "string", default: "3000" } } });
const CALLS = Number(values.calls);
const ROUNDS = 10;
const GOAL_MS = 1;
const TOKEN = "bench-pager-token";

const upstream = await localPagerDuty();
const server = stdioServer(["--toolkits", "pager"], {
  PAGER_API_URL: upstream.url,
  PAGER_ACCESS_TOKEN: TOKEN,
});
await server.initialize();

const headers = { authorization: `Bearer ${TOKEN}`, accept: "application/vnd.pagerduty+json;version=2" };
async function direct() {
  const response = await fetch(`${upstream.url}/services/${upstream.serviceId}`, { headers });
  return JSON.parse(await response.text());
}
async function throughServer() {
  const answer = await server.callTool("Pager.GetService", { service_id: upstream.serviceId });
  if (answer.error || answer.result.isError) throw new Error(JSON.stringify(answer).slice(0, 300));
  return answer;
}

async function timed(run, count, into) {
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await run();
    into.push(performance.now() - started);
  }
}

const warm = [];
await timed(direct, 300, warm);
await timed(throughServer, 300, warm);
const directMs = [];
const toolMs = [];
for (let round = 0; round < ROUNDS; round++) {
  await timed(direct, CALLS / ROUNDS, directMs);
  await timed(throughServer, CALLS / ROUNDS, toolMs);
}
await server.stop();
await upstream.close();

const p50 = { direct: percentile(directMs, 50), tool: percentile(toolMs, 50) };
report(`Per-call overhead over stdio, zero-latency local upstream (${CALLS} calls each)`, [
  {
    measure: "direct HTTP GET /services/{id}",
    "p50 ms": fixed(p50.direct, 3),
    "p99 ms": fixed(percentile(directMs, 99), 3),
  },
  {
    measure: "Pager.GetService over stdio",
    "p50 ms": fixed(p50.tool, 3),
    "p99 ms": fixed(percentile(toolMs, 99), 3),
  },
  {
    measure: "overhead (tool − direct)",
    "p50 ms": fixed(p50.tool - p50.direct, 3),
    "p99 ms": fixed(percentile(toolMs, 99) - percentile(directMs, 99), 3),
    goal: `p50 ≤ ${GOAL_MS}`,
    met: p50.tool - p50.direct <= GOAL_MS,
  },
]);
