#!/usr/bin/env node
// Cold start to the first tools/list over stdio with every toolkit, in the three ways the server is
// started (upstream credentials in the environment, none at all, --sandbox), each next to a bare
// SDK server with as many tools (bench/bare-server.mjs) measured in the same run, in alternating
// rounds whose order turns and reverses (lib.mjs roundOrder), with the ratio (the median of the rounds' ratios);
// resident memory once idle; and the catalogue a model is shown (each tool's name, description and
// input schema), per toolkit and in total.
// Usage: node bench/startup.mjs [--runs 24]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  cpuMs,
  fixed,
  goalText,
  median,
  meets,
  ratioFigure,
  report,
  residentMb,
  roundOrder,
  stdioServer,
} from "./lib.mjs";

const { values } = parseArgs({ options: { runs: { type: "string", default: "24" } } });
const RUNS = Number(values.runs);
const CATALOGUE_GOAL_BYTES = 100_000;
const BARE = fileURLToPath(new URL("./bare-server.mjs", import.meta.url));

// An empty configuration directory: no sign-in stored, as for a user who never ran `login`.
const CONFIG_HOME = mkdtempSync(join(tmpdir(), "toolkits-startup-"));
const CREDENTIALS = {
  PAGER_ACCESS_TOKEN: "bench-pager-token",
  GOOGLE_ACCESS_TOKEN: "bench-google-token",
  MARKETING_API_KEY: "bench-marketing-key",
};
const MODES = [
  // The goals are judged on Node 24, the line the image runs (`bench:node-lines`).
  { name: "with credentials", args: [], env: CREDENTIALS, goal: { atMost: 0.9 } },
  // Every toolkit warns on stderr that it is not configured.
  { name: "without credentials", args: [], env: {}, goal: { atMost: 1.15 } },
  { name: "--sandbox", args: ["--sandbox"], env: {}, goal: { atMost: 1.5 } },
];

/** Spawn to the tools/list answer, in ms, and the server's CPU time by then; also the tools and its idle memory. */
async function coldStart(script, args = [], env = {}) {
  const started = performance.now();
  const server = stdioServer(args, { XDG_CONFIG_HOME: CONFIG_HOME, ...env }, script);
  await server.initialize();
  const { result } = await server.request("tools/list");
  const ms = performance.now() - started;
  const cpu = cpuMs(server.child.pid);
  await sleep(200);
  const idleMb = residentMb(server.child.pid);
  await server.stop();
  return { ms, cpu, tools: result.tools, idleMb };
}

/** The runs of one server: cold-start times, median CPU time, its tool list and median idle memory. */
function summary(all) {
  return {
    ms: all.map((run) => run.ms),
    cpu: median(all.map((run) => run.cpu ?? 0)),
    tools: all[0]?.tools ?? [],
    idleMb: median(all.map((run) => run.idleMb ?? 0)),
  };
}

const SERVERS = [{ script: BARE }, ...MODES];
const runs = SERVERS.map(() => []);
for (let round = 0; round < RUNS; round++) {
  for (const index of roundOrder([...SERVERS.keys()], round)) {
    const { script, args, env } = SERVERS[index];
    runs[index].push(await coldStart(script, args, env));
  }
}
rmSync(CONFIG_HOME, { recursive: true, force: true });
const [bareRuns, ...modeRuns] = runs;
const bare = summary(bareRuns);
/** Each round's `key` (ms or cpu) of mode `index` ÷ the bare server's in the same round. */
const ratiosOf = (index, key) => modeRuns[index].map((run, round) => run[key] / bareRuns[round][key]);
const modes = MODES.map((mode, index) => ({
  ...mode,
  ...summary(modeRuns[index]),
  ratios: ratiosOf(index, "ms"),
  cpuRatios: ratiosOf(index, "cpu"),
}));
/** One row of the cold-start table: elapsed time (median and range) and CPU time (median). */
const timings = (server) => ({
  "median ms": fixed(median(server.ms)),
  "range ms": `${fixed(Math.min(...server.ms))}–${fixed(Math.max(...server.ms))}`,
  "CPU ms": fixed(server.cpu),
});
report(
  `Cold start to the first tools/list over stdio (median of ${RUNS} rounds; ÷ bare: median of the rounds' ratios)`,
  [
    {
      measure: `bare SDK server (${bare.tools.length} small tools)`,
      ...timings(bare),
      "CPU ÷ bare": "",
      "÷ bare": "",
    },
    ...modes.map((mode) => {
      const ratio = median(mode.ratios);
      return {
        measure: `toolkits-mcp ${mode.name} (${mode.tools.length} tools)`,
        ...timings(mode),
        // CPU time hardly moves with what else the machine runs, unlike elapsed time.
        "CPU ÷ bare": `${fixed(median(mode.cpuRatios), 2)}×`,
        "÷ bare": `${fixed(ratio, 2)}×`,
        goal: goalText(mode.goal),
        met: meets(ratio, mode.goal),
      };
    }),
  ],
);

const [withCredentials] = modes;
report("Goal figure: cold start against a bare SDK server, same run (ratio: median of the rounds' ratios)", [
  ratioFigure(
    `cold start to the first tools/list, toolkits-mcp ${withCredentials.name} ÷ bare SDK server with ${bare.tools.length} tools`,
    {
      ours: `${fixed(median(withCredentials.ms))} ms`,
      reference: `${fixed(median(bare.ms))} ms`,
      ratios: withCredentials.ratios,
      goal: withCredentials.goal,
    },
  ),
]);

report("Resident memory once idle after tools/list (stdio)", [
  { measure: "bare SDK server", MB: fixed(bare.idleMb, 1) },
  ...modes.map((mode) => ({ measure: `toolkits-mcp ${mode.name}`, MB: fixed(mode.idleMb, 1) })),
]);

const bytes = (tool) =>
  Buffer.byteLength(
    JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }),
  );
const perToolkit = new Map();
for (const tool of modes[0].tools) {
  // Served names are Pager_WhoAmI by default, Pager.WhoAmI with --tool-names dotted.
  const prefix = tool.name.split(/[._]/)[0];
  const row = perToolkit.get(prefix) ?? { tools: 0, bytes: 0 };
  perToolkit.set(prefix, { tools: row.tools + 1, bytes: row.bytes + bytes(tool) });
}
const total = [...perToolkit.values()].reduce((sum, row) => sum + row.bytes, 0);
report("Catalogue as a model is shown it (name, description and input schema per tool)", [
  ...[...perToolkit].map(([prefix, row]) => ({ measure: prefix, ...row })),
  {
    measure: "total",
    tools: modes[0].tools.length,
    bytes: total,
    goal: `≤ ${CATALOGUE_GOAL_BYTES}`,
    met: total <= CATALOGUE_GOAL_BYTES,
  },
]);
