// Shared pieces of the benchmarks: a bare JSON-RPC client for the built server over stdio,
// statistics, alternating rounds, resident memory of a process and tables that print each figure
// next to its goal.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The built binary. */
export const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));

const INITIALIZE = {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "bench", version: "0" },
};

/**
 * Starts `node <script> …args` as an MCP server over stdio and talks JSON-RPC to it line by line,
 * with no SDK on the client side, so measured times are the server's (plus the pipe).
 */
export function stdioServer(args = [], env = {}, script = CLI) {
  const child = spawn(process.execPath, [script, ...args], {
    stdio: ["pipe", "pipe", "ignore"],
    env: { PATH: process.env.PATH, ...env },
  });
  const waiting = new Map();
  let nextId = 1;
  let buffer = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    buffer += chunk;
    for (let end = buffer.indexOf("\n"); end >= 0; end = buffer.indexOf("\n")) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
      if (!line.trim()) continue;
      const message = JSON.parse(line);
      waiting.get(message.id)?.(message);
      waiting.delete(message.id);
    }
  });
  const send = (message) => child.stdin.write(`${JSON.stringify(message)}\n`);
  const request = (method, params = {}) =>
    new Promise((resolve) => {
      const id = nextId++;
      waiting.set(id, resolve);
      send({ jsonrpc: "2.0", id, method, params });
    });
  return {
    child,
    request,
    /** initialize, then the initialized notification, as every client starts. */
    async initialize() {
      const answer = await request("initialize", INITIALIZE);
      send({ jsonrpc: "2.0", method: "notifications/initialized" });
      return answer;
    },
    /** tools/call; resolves with the JSON-RPC answer. */
    callTool: (name, args) => request("tools/call", { name, arguments: args }),
    stop: () => stopChild(child),
  };
}

/** Stops a child process with SIGTERM; resolves once it has exited. */
export function stopChild(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

/** Runs `run` `count` times one after another, pushing each run's time in ms onto `into`. */
export async function timed(run, count, into) {
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await run();
    into.push(performance.now() - started);
  }
}

/** The `p`th percentile (0–100) of `values`, by nearest rank. */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}

/** The median of `values`: the middle one, or the mean of the two middle ones; 0 if none. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length % 2) return sorted[middle];
  return sorted.length ? (sorted[middle - 1] + sorted[middle]) / 2 : 0;
}

/**
 * The order in which round `round` runs `items`: rotated by one place every second round and
 * reversed every other round, so each item runs at every position and after every other item
 * (what running first, or right after another server's load or one's own garbage, costs) alike.
 */
export function roundOrder(items, round) {
  const start = Math.floor(round / 2) % items.length;
  const turned = [...items.slice(start), ...items.slice(0, start)];
  return round % 2 ? turned.reverse() : turned;
}

/** Resident set size of process `pid` in MB, from /proc (Linux); undefined elsewhere. */
export function residentMb(pid) {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

/**
 * CPU time process `pid` has used so far in ms, all its threads, from /proc (Linux); undefined
 * elsewhere. Unlike elapsed time, it hardly moves with what else the machine is running.
 */
export function cpuMs(pid) {
  try {
    const threads = readdirSync(`/proc/${pid}/task`);
    // schedstat's first field: nanoseconds spent running.
    const ns = threads.map((id) =>
      Number(readFileSync(`/proc/${pid}/task/${id}/schedstat`, "utf8").split(" ")[0]),
    );
    return ns.reduce((sum, one) => sum + one, 0) / 1e6;
  } catch {
    return undefined;
  }
}

/** A number with `digits` decimals, for table cells; "n/a" for undefined or NaN (not measured here). */
export const fixed = (value, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : "n/a");

/**
 * Prints a titled table of rows `{ measure, value, goal?, met? }`: `met` is true, false or
 * undefined (no goal), shown as ✓, ✗ or blank.
 */
export function report(title, rows) {
  console.log(`\n${title}`);
  console.table(
    Object.fromEntries(
      rows.map(({ measure, met, goal, ...rest }) => [
        measure,
        { ...rest, goal: goal ?? "", met: met === undefined ? "" : met ? "✓" : "✗" },
      ]),
    ),
  );
}

/** A ratio goal, `{ atMost }` or `{ atLeast }`, as shown: "≤ 1.3×", "≥ 4.0×". */
export function goalText(goal) {
  const shown = (bound) => (Number.isInteger(bound) ? bound.toFixed(1) : String(bound));
  return "atMost" in goal ? `≤ ${shown(goal.atMost)}×` : `≥ ${shown(goal.atLeast)}×`;
}

/** Whether `ratio` meets `goal`, `{ atMost }` or `{ atLeast }`. */
export const meets = (ratio, goal) => ("atMost" in goal ? ratio <= goal.atMost : ratio >= goal.atLeast);

/**
 * A `report` row for one goal figure, a ratio of ours to a reference measured in the same run:
 * `ratios` holds one ratio per round of alternating measurements and the figure is their median;
 * `ours` and `reference` are the divided figures as shown; `goal` is `{ atMost }` or `{ atLeast }`;
 * `valid` false (failed calls, say) makes it not met whatever the ratio.
 */
export function ratioFigure(measure, { ours, reference, ratios, goal, valid = true }) {
  const ratio = median(ratios);
  return {
    measure,
    ours,
    reference,
    ratio: `${fixed(ratio, 2)}×`,
    "range over rounds": `${fixed(Math.min(...ratios), 2)}–${fixed(Math.max(...ratios), 2)}×`,
    goal: goalText(goal),
    met: valid && meets(ratio, goal),
  };
}

/**
 * Bundles `exports` (lines of `export … from "./src/…"`, resolved from the server's folder) into
 * `dir/<name>.mjs` with the server's own esbuild options, and imports it: benchmarks measure the
 * server's code as it ships, each part sharing one copy of core.
 */
export async function importBundled(dir, name, exports) {
  const { build } = await import("esbuild");
  const outfile = join(dir, `${name}.mjs`);
  await build({
    stdin: {
      contents: exports.join("\n"),
      resolveDir: fileURLToPath(new URL("..", import.meta.url)),
      sourcefile: `${name}-bench-entry.ts`,
      loader: "ts",
    },
    outfile,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    external: ["open"],
    banner: {
      js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);',
    },
    logLevel: "warning",
  });
  return import(pathToFileURL(outfile).href);
}
