#!/usr/bin/env node
// Per-call cost: Pager.GetService through the built server over stdio, against a zero-latency
// PagerDuty on 127.0.0.1 (PAGER_API_URL), next to the same GET sent directly from this process and
// the same GET made by a bare SDK server's one tool (bench/bare-get-server.mjs) over stdio, driven
// by the same client. Rounds alternate between the three so drift affects all alike.
// Usage: node bench/overhead.mjs [--calls 3000]
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { fixed, percentile, report, stdioServer, timed } from "./lib.mjs";
import { localPagerDuty } from "./upstream.mjs";

const { values } = parseArgs({ options: { calls: { type: "string", default: "3000" } } });
const CALLS = Number(values.calls);
const ROUNDS = 10;
const GOAL_MS = 1;
const GOAL_RATIO = 1.5;
const TOKEN = "bench-pager-token";
const BARE = fileURLToPath(new URL("./bare-get-server.mjs", import.meta.url));

const upstream = await localPagerDuty();
const env = { PAGER_API_URL: upstream.url, PAGER_ACCESS_TOKEN: TOKEN };
const server = stdioServer(["--toolkits", "pager"], env);
const bare = stdioServer([], env, BARE);
await Promise.all([server.initialize(), bare.initialize()]);

const headers = { authorization: `Bearer ${TOKEN}`, accept: "application/vnd.pagerduty+json;version=2" };
async function direct() {
  const response = await fetch(`${upstream.url}/services/${upstream.serviceId}`, { headers });
  return JSON.parse(await response.text());
}

/** A runner calling `tool` on `through` and failing loudly on an error answer. */
const toolCall = (through, tool) => async () => {
  const answer = await through.callTool(tool, { service_id: upstream.serviceId });
  if (answer.error || answer.result.isError) throw new Error(JSON.stringify(answer).slice(0, 300));
  return answer;
};

const runners = {
  direct,
  bare: toolCall(bare, "Bare_GetService"),
  ours: toolCall(server, "Pager.GetService"),
};
const ms = { direct: [], bare: [], ours: [] };
for (const run of Object.values(runners)) await timed(run, 300, []);
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, run] of Object.entries(runners)) await timed(run, CALLS / ROUNDS, ms[name]);
}
await Promise.all([server.stop(), bare.stop()]);
await upstream.close();

const p50 = (name) => percentile(ms[name], 50);
const p99 = (name) => percentile(ms[name], 99);
const row = (measure, name) => ({ measure, "p50 ms": fixed(p50(name), 3), "p99 ms": fixed(p99(name), 3) });
report(`Per-call cost over stdio, zero-latency local upstream (${CALLS} calls each)`, [
  row("direct HTTP GET /services/{id}", "direct"),
  row("bare SDK server, one tool doing the GET", "bare"),
  row("Pager.GetService over stdio", "ours"),
  {
    measure: "overhead (ours − direct)",
    "p50 ms": fixed(p50("ours") - p50("direct"), 3),
    "p99 ms": fixed(p99("ours") - p99("direct"), 3),
    goal: `p50 ≤ ${GOAL_MS}`,
    met: p50("ours") - p50("direct") <= GOAL_MS,
  },
  {
    measure: "ours ÷ bare SDK tool",
    "p50 ms": `${fixed(p50("ours") / p50("bare"), 2)}×`,
    "p99 ms": `${fixed(p99("ours") / p99("bare"), 2)}×`,
    goal: `p50 ≤ ${GOAL_RATIO}×`,
    met: p50("ours") / p50("bare") <= GOAL_RATIO,
  },
]);
