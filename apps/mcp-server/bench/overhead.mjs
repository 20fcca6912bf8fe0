#!/usr/bin/env node
// Per-call cost: Pager.GetIncident through the built server over stdio, against a zero-latency
// PagerDuty on 127.0.0.1 (PAGER_API_URL) serving PagerDuty's own example incident, next to the same
// GET sent directly from this process and the same GET made by a bare SDK server's one tool
// (bench/bare-get-server.mjs) over stdio, driven by the same client. Rounds alternate between the
// three in an order that turns and reverses (lib.mjs roundOrder), so drift affects all alike; the
// ratio to the bare SDK tool is the median of the rounds' p50 ratios. The same server with
// telemetry on (traces and metrics exported over OTLP/HTTP to a receiver on loopback, every
// metric export interval shortened to 1 s) runs in the same rounds: its p50 against ours without.
// `--baseline <dist/cli.js>` adds another build of the server (today's, say) to the rounds, ours
// without telemetry measured against it.
// Usage: node bench/overhead.mjs [--calls 6000] [--baseline path/to/cli.js]
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { fixed, median, percentile, ratioFigure, report, roundOrder, stdioServer, timed } from "./lib.mjs";
import { localPagerDuty } from "./upstream.mjs";

const { values } = parseArgs({
  options: { calls: { type: "string", default: "6000" }, baseline: { type: "string" } },
});
const CALLS = Number(values.calls);
const ROUNDS = 20;
const GOAL_MS = 1;
/** Against the bare SDK tool, judged on Node 24 (the line the image runs). */
const GOAL_RATIO = 1.2;
/** Telemetry on, exporting, against off: within 15%; off against the baseline build: within 3%. */
const GOAL_TELEMETRY = 1.15;
const GOAL_BASELINE = 1.03;
const TOKEN = "bench-pager-token";
const BARE = fileURLToPath(new URL("./bare-get-server.mjs", import.meta.url));

/** An OTLP/HTTP receiver on loopback that reads every export whole and answers it. */
async function otlpReceiver() {
  let exports = 0;
  const receiver = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      exports++;
      // An empty success: what a collector answers an export it took whole, in either encoding.
      response.writeHead(200).end();
    });
  });
  await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${receiver.address().port}`,
    exports: () => exports,
    close: () => new Promise((resolve) => receiver.close(resolve)),
  };
}

const upstream = await localPagerDuty();
const receiver = await otlpReceiver();
const env = { PAGER_API_URL: upstream.url, PAGER_ACCESS_TOKEN: TOKEN };
const server = stdioServer(["--toolkits", "pager"], env);
const traced = stdioServer(["--toolkits", "pager"], {
  ...env,
  OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
  OTEL_METRIC_EXPORT_INTERVAL: "1000",
});
const bare = stdioServer([], env, BARE);
const today = values.baseline && stdioServer(["--toolkits", "pager"], env, values.baseline);
await Promise.all([server, traced, bare, today].filter(Boolean).map((each) => each.initialize()));

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
  traced: toolCall(traced, "Pager.GetIncident"),
  ...(today && { today: toolCall(today, "Pager.GetIncident") }),
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

const ms = Object.fromEntries(Object.keys(runners).map((name) => [name, []]));
const ratios = [];
const tracedRatios = [];
const todayRatios = [];
for (let round = 0; round < ROUNDS; round++) {
  const p50s = {};
  for (const name of roundOrder(Object.keys(runners), round)) {
    const samples = [];
    await timed(runners[name], CALLS / ROUNDS, samples);
    ms[name].push(...samples);
    p50s[name] = median(samples);
  }
  ratios.push(p50s.ours / p50s.bare);
  tracedRatios.push(p50s.traced / p50s.ours);
  if (today) todayRatios.push(p50s.ours / p50s.today);
}
await Promise.all([server, traced, bare, today].filter(Boolean).map((each) => each.stop()));
await upstream.close();
const exported = receiver.exports();
await receiver.close();
if (!exported) throw new Error("the server with telemetry on exported nothing to the receiver");

const p50 = (name) => percentile(ms[name], 50);
const p99 = (name) => percentile(ms[name], 99);
const row = (measure, name) => ({ measure, "p50 ms": fixed(p50(name), 3), "p99 ms": fixed(p99(name), 3) });
report(
  `Per-call cost over stdio, zero-latency local upstream serving a ${upstream.incidentBytes}-byte incident (${CALLS} calls each, ${ROUNDS} alternating rounds)`,
  [
    row("direct HTTP GET /incidents/{id}", "direct"),
    row("bare SDK server, one tool doing the GET", "bare"),
    row("Pager.GetIncident over stdio", "ours"),
    row("the same, telemetry on (traces and metrics exported over OTLP/HTTP)", "traced"),
    ...(today ? [row(`the same, baseline build (${values.baseline})`, "today")] : []),
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
report(
  `Telemetry: the same stdio call with traces and metrics on, exporting to a receiver on loopback (${exported} exports received)`,
  [
    ratioFigure("stdio call p50, telemetry on and exporting ÷ off", {
      ours: `${fixed(p50("traced"), 3)} ms`,
      reference: `${fixed(p50("ours"), 3)} ms`,
      ratios: tracedRatios,
      goal: { atMost: GOAL_TELEMETRY },
    }),
    ...(today
      ? [
          ratioFigure("stdio call p50, telemetry off ÷ the baseline build", {
            ours: `${fixed(p50("ours"), 3)} ms`,
            reference: `${fixed(p50("today"), 3)} ms`,
            ratios: todayRatios,
            goal: { atMost: GOAL_BASELINE },
          }),
        ]
      : []),
  ],
);
