#!/usr/bin/env node
// Per-call cost: Pager.GetIncident through the built server over stdio, against a zero-latency
// PagerDuty on 127.0.0.1 (PAGER_API_URL) serving PagerDuty's own example incident, next to the same
// GET sent directly from this process and the same GET made by a bare SDK server's one tool
// (bench/bare-get-server.mjs) over stdio, driven by the same client. Rounds alternate between the
// three in an order that turns and reverses (lib.mjs roundOrder), so drift affects all alike; the
// ratio to the bare SDK tool is the median of the rounds' p50 ratios.
// Usage: node bench/overhead.mjs [--calls 6000]
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { fixed, median, percentile, ratioFigure, report, roundOrder, stdioServer, timed } from "./lib.mjs";
import { localPagerDuty } from "./upstream.mjs";

const { values } = parseArgs({ options: { calls: { type: "string", default: "6000" } } });
const CALLS = Number(values.calls);
const ROUNDS = 20;
const GOAL_MS = 1;
const GOAL_RATIO = 1.3;
const TOKEN = "bench-pager-token";
const BARE = fileURLToPath(new URL("./bare-get-server.mjs", import.meta.url));

const upstream = await localPagerDuty();
const env = { PAGER_API_URL: upstream.url, PAGER_ACCESS_TOKEN: TOKEN };
const server = stdioServer(["--toolkits", "pager"], env);
const bare = stdioServer([], env, BARE);
await Promise.all([server.initialize(), bare.initialize()]);

const headers = { authorization: `Bearer ${TOKEN}`, accept: "application/vnd.pagerduty+json;version=2" };
async function direct() {
  const response = await fetch(`${upstream.url}/incidents/${upstream.incidentId}`, { headers });
  return JSON.parse(await response.text());
}

/** A runner calling `tool` on `through` and failing loudly on an error answer. */
const toolCall = (through, tool) => async () => {
  const answer = await through.callTool(tool, { incident_id: upstream.incidentId });
  if (answer.error || answer.result.isError) throw new Error(JSON.stringify(answer).slice(0, 300));
  return answer;
};

const runners = {
  direct,
  bare: toolCall(bare, "Bare_GetIncident"),
  ours: toolCall(server, "Pager.GetIncident"),
};
// Both tools must have read the incident, or the comparison is of something else.
const [bareAnswer, oursAnswer] = await Promise.all([runners.bare(), runners.ours()]);
if (Buffer.byteLength(bareAnswer.result.content[0].text) !== upstream.incidentBytes) {
  throw new Error("the bare SDK tool did not return the incident");
}
if (oursAnswer.result.structuredContent?.incident?.id !== upstream.incidentId) {
  throw new Error(
    `Pager.GetIncident did not return the incident: ${JSON.stringify(oursAnswer).slice(0, 300)}`,
  );
}
for (const run of Object.values(runners)) await timed(run, 300, []);

const ms = { direct: [], bare: [], ours: [] };
const ratios = [];
for (let round = 0; round < ROUNDS; round++) {
  const p50s = {};
  for (const name of roundOrder(Object.keys(runners), round)) {
    const samples = [];
    await timed(runners[name], CALLS / ROUNDS, samples);
    ms[name].push(...samples);
    p50s[name] = median(samples);
  }
  ratios.push(p50s.ours / p50s.bare);
}
await Promise.all([server.stop(), bare.stop()]);
await upstream.close();

const p50 = (name) => percentile(ms[name], 50);
const p99 = (name) => percentile(ms[name], 99);
const row = (measure, name) => ({ measure, "p50 ms": fixed(p50(name), 3), "p99 ms": fixed(p99(name), 3) });
report(
  `Per-call cost over stdio, zero-latency local upstream serving a ${upstream.incidentBytes}-byte incident (${CALLS} calls each, ${ROUNDS} alternating rounds)`,
  [
    row("direct HTTP GET /incidents/{id}", "direct"),
    row("bare SDK server, one tool doing the GET", "bare"),
    row("Pager.GetIncident over stdio", "ours"),
    {
      measure: "overhead (ours − direct)",
      "p50 ms": fixed(p50("ours") - p50("direct"), 3),
      "p99 ms": fixed(p99("ours") - p99("direct"), 3),
      goal: `p50 ≤ ${GOAL_MS}`,
      met: p50("ours") - p50("direct") <= GOAL_MS,
    },
  ],
);
report(
  "Goal figure: stdio call against a bare SDK tool, same run (ratio: median of the rounds' p50 ratios)",
  [
    ratioFigure("stdio call p50, Pager.GetIncident ÷ bare SDK tool making the same GET", {
      ours: `${fixed(p50("ours"), 3)} ms`,
      reference: `${fixed(p50("bare"), 3)} ms`,
      ratios,
      goal: { atMost: GOAL_RATIO },
    }),
  ],
);
