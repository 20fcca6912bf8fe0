#!/usr/bin/env node
// Cold start to the first tools/list over stdio with every toolkit (next to a bare SDK server
// with as many tools, bench/bare-server.mjs, and the ratio between the two), resident memory once
// idle, and the catalogue a model is shown (each tool's name, description and input schema), per
// toolkit and in total.
// Usage: node bench/startup.mjs [--runs 15]
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { fixed, median, report, residentMb, stdioServer } from "./lib.mjs";

const { values } = parseArgs({ options: { runs: { type: "string", default: "15" } } });
const RUNS = Number(values.runs);
const COLD_START_GOAL_MS = 300;
const BARE_RATIO_GOAL = 1.15;
const CATALOGUE_GOAL_BYTES = 100_000;
const BARE = fileURLToPath(new URL("./bare-server.mjs", import.meta.url));

/** Spawn to the tools/list answer, in ms; also the tools and the server's idle memory. */
async function coldStart(script) {
  const started = performance.now();
  const server = stdioServer([], {}, script);
  await server.initialize();
  const { result } = await server.request("tools/list");
  const ms = performance.now() - started;
  await sleep(200);
  const idleMb = residentMb(server.child.pid);
  await server.stop();
  return { ms, tools: result.tools, idleMb };
}

/** The runs of one server: cold-start times, its tool list and median idle memory. */
function summary(all) {
  return {
    ms: all.map((run) => run.ms),
    tools: all[0]?.tools ?? [],
    idleMb: median(all.map((run) => run.idleMb ?? 0)),
  };
}

// Runs alternate between the two servers so drift on the machine affects both alike.
const bareRuns = [];
const fullRuns = [];
for (let i = 0; i < RUNS; i++) {
  bareRuns.push(await coldStart(BARE));
  fullRuns.push(await coldStart(undefined));
}
const bare = summary(bareRuns);
const full = summary(fullRuns);
const range = (ms) => `${fixed(Math.min(...ms))}–${fixed(Math.max(...ms))}`;
report(`Cold start to the first tools/list over stdio (median of ${RUNS} runs)`, [
  {
    measure: `toolkits-mcp, all toolkits (${full.tools.length} tools)`,
    "median ms": fixed(median(full.ms)),
    "range ms": range(full.ms),
    goal: `≤ ${COLD_START_GOAL_MS}`,
    met: median(full.ms) <= COLD_START_GOAL_MS,
  },
  {
    measure: `bare SDK server (${bare.tools.length} small tools)`,
    "median ms": fixed(median(bare.ms)),
    "range ms": range(bare.ms),
  },
  {
    measure: "ours ÷ bare SDK server",
    "median ms": `${fixed(median(full.ms) / median(bare.ms), 2)}×`,
    goal: `≤ ${BARE_RATIO_GOAL}×`,
    met: median(full.ms) / median(bare.ms) <= BARE_RATIO_GOAL,
  },
]);

report("Resident memory once idle after tools/list (stdio)", [
  { measure: "toolkits-mcp, all toolkits", MB: fixed(full.idleMb, 1) },
  { measure: "bare SDK server", MB: fixed(bare.idleMb, 1) },
]);

const bytes = (tool) =>
  Buffer.byteLength(
    JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }),
  );
const perToolkit = new Map();
for (const tool of full.tools) {
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
    tools: full.tools.length,
    bytes: total,
    goal: `≤ ${CATALOGUE_GOAL_BYTES}`,
    met: total <= CATALOGUE_GOAL_BYTES,
  },
]);
