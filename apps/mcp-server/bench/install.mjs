#!/usr/bin/env node
// What a first `npx @toolkits/mcp-server` installs: packs the server as it is published, installs
// the tarball with npm into an empty project with an empty npm cache (everything comes from the
// registry, as on a new machine), and prints the installed size, package count and install time
// beside the goals. Each run uses a fresh project and cache.
// Usage: node bench/install.mjs [--runs 3]
import { execFileSync } from "node:child_process";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { pnpmCommand } from "../../../scripts/workspace.mjs";
import { fixed, median, report } from "./lib.mjs";

const { values } = parseArgs({ options: { runs: { type: "string", default: "3" } } });
const RUNS = Number(values.runs);
const SIZE_GOAL_MB = 25;
const PACKAGES_GOAL = 40;
const SERVER = fileURLToPath(new URL("..", import.meta.url));

const run = (command, cwd, env = process.env) =>
  execFileSync(command[0], command.slice(1), {
    cwd,
    env,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });

/** Packs the server with pnpm, which writes the published manifest (catalog and workspace versions resolved). */
function pack(into) {
  const [pnpm, ...args] = pnpmCommand();
  run([pnpm, ...args, "pack", "--pack-destination", into], SERVER);
  const tarball = readdirSync(into).find((file) => file.endsWith(".tgz"));
  if (!tarball) throw new Error(`pnpm pack wrote no tarball to ${into}`);
  return join(into, tarball);
}

/**
 * npm would fetch a workspace package from the registry at the version the tarball names, which is
 * released together with the server and so need not be there yet: the bundle carries them instead.
 */
function assertNoWorkspaceDependency() {
  const { dependencies = {} } = JSON.parse(readFileSync(join(SERVER, "package.json"), "utf8"));
  const internal = Object.keys(dependencies).filter((name) => dependencies[name].startsWith("workspace:"));
  if (internal.length) throw new Error(`runtime dependencies on workspace packages: ${internal.join(", ")}`);
}

/** Bytes on disk under `path`, as `du` counts them (allocated blocks; hard links once). */
function diskBytes(path, seen = new Set()) {
  const stat = lstatSync(path, { bigint: true });
  if (seen.has(stat.ino)) return 0;
  seen.add(stat.ino);
  const own = Number(stat.blocks) * 512;
  if (!stat.isDirectory()) return own;
  return readdirSync(path).reduce((sum, entry) => sum + diskBytes(join(path, entry), seen), own);
}

/** npm's environment without the `npm_*` variables a parent `pnpm run` sets, which npm would read as its config. */
function npmEnvironment() {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
}

/** One cold install of the tarball: a new project and an empty cache. */
function coldInstall(tarball, scratch, index) {
  const project = join(scratch, `project-${index}`);
  const cache = join(scratch, `cache-${index}`);
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "install-bench", private: true }));
  const started = performance.now();
  run(
    ["npm", "install", tarball, "--cache", cache, "--no-audit", "--no-fund", "--loglevel=error"],
    project,
    npmEnvironment(),
  );
  const seconds = (performance.now() - started) / 1000;
  // npm's record of what it installed: one entry per package, the server's own included.
  const { packages } = JSON.parse(readFileSync(join(project, "node_modules/.package-lock.json"), "utf8"));
  const installed = Object.keys(packages).filter((path) => path.startsWith("node_modules/")).length;
  const mb = diskBytes(join(project, "node_modules")) / 1e6;
  rmSync(project, { recursive: true, force: true });
  rmSync(cache, { recursive: true, force: true });
  return { seconds, installed, mb };
}

assertNoWorkspaceDependency();
const scratch = mkdtempSync(join(tmpdir(), "toolkits-install-"));
try {
  const tarball = pack(scratch);
  const tarballKb = lstatSync(tarball).size / 1e3;
  const runs = Array.from({ length: RUNS }, (_, index) => coldInstall(tarball, scratch, index));
  const col = (key, digits) => {
    const all = runs.map((one) => one[key]);
    const [low, high] = [Math.min(...all), Math.max(...all)];
    const range = low === high ? "" : ` (${fixed(low, digits)}–${fixed(high, digits)})`;
    return { median: median(all), shown: `${fixed(median(all), digits)}${range}` };
  };
  const size = col("mb", 1);
  const count = col("installed", 0);
  const time = col("seconds", 1);
  report(`npm install of the packed server, empty cache (median of ${RUNS} runs, range)`, [
    { measure: "tarball", value: `${fixed(tarballKb)} kB` },
    {
      measure: "installed size (du of node_modules)",
      value: `${size.shown} MB`,
      goal: `≤ ${SIZE_GOAL_MB} MB`,
      met: size.median <= SIZE_GOAL_MB,
    },
    {
      measure: "packages installed",
      value: count.shown,
      goal: `≤ ${PACKAGES_GOAL}`,
      met: count.median <= PACKAGES_GOAL,
    },
    { measure: "install time", value: `${time.shown} s` },
  ]);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
