#!/usr/bin/env node
// Runs the shell commands the READMEs show, as written, so that a README cannot drift from what works:
// every command of a ```sh block, and every inline one starting with npx, pnpm, npm or node. Each is
// either skipped for a stated reason (credentials, a browser sign-in, a real upstream, an install
// from the registry, minutes of benchmarks) or run with a time limit; one that no rule classifies fails, so a new
// command gets a decision. `@toolkits/mcp-server` is this checkout's server: the packages are packed
// and installed into a scratch project, the working directory of those commands, where npx finds them
// instead of asking the registry. Exit 1 when a command fails. Run after a build.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { PUBLISHED_PACKAGES, pnpmCommand } from "./workspace.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SHELL_FENCES = new Set(["sh", "bash", "shell"]);
const INLINE_COMMAND = /^(npx|pnpm|npm|node) /;
const NAMES_SERVER = /@toolkits\/mcp-server\b/;
const MINUTE = 60_000;

/** What is not run here, and why; the first match wins. `.ci/run`'s own commands come before these. */
const SKIPS = [
  [/\bnpm install\b/, "installs the published packages into the reader's own project"],
  [/^(claude|gemini) mcp add\b/, "adds the server to an MCP client on the reader's machine"],
  [/_(ACCESS_TOKEN|API_TOKEN|API_KEY)\b/, "needs credentials for a real upstream"],
  [/\blogin\b/, "a sign-in in a browser at the provider"],
  [/\blogout\b/, "revokes a sign-in at the provider"],
  [/\bchangeset version\b/, "a release step: writes versions and changelogs"],
  [/\bchangeset\b/, "interactive: asks which packages to bump"],
  [/\bbench\b/, "benchmarks: minutes of load, with figures for a person to read"],
  [
    /\b(vendor|generate|update-snapshots|docs\.mjs)\b/,
    "rewrites committed files (generated code, vendored descriptions, snapshots, README tool tables) after an intended change",
  ],
  [/inspector@[\d.]+\s*(#|$)/, "starts the Inspector's web UI for a person"],
  [/…|<[a-z]+>|\[path/, "has a placeholder to fill in"],
  [
    /^npx -y pnpm@[\d.]+ --filter \S+ test\s*(#|$)/,
    "one package's part of the README's test command, which CI runs whole",
  ],
];

/** What is run, and how; a command matching none of these nor SKIPS fails as unclassified. */
const RUNS = [
  [/^npx -y @modelcontextprotocol\/inspector@[\d.]+ --cli .*--sandbox/, { kind: "once", limit: 5 * MINUTE }],
  [/@toolkits\/mcp-server .*--transport http\b/, { kind: "http", limit: MINUTE }],
  [/@toolkits\/mcp-server .*--sandbox\b/, { kind: "stdio", limit: MINUTE }],
  [/@toolkits\/mcp-server (--help|--version|auth status)\b/, { kind: "once", limit: MINUTE }],
  [
    /^npx -y pnpm@[\d.]+ (--filter \S+ )?(build|demo|test|conformance)(\s|$)/,
    { kind: "once", limit: 10 * MINUTE },
  ],
];

/** Every tracked README, relative to the root. */
function readmes() {
  const listed = execFileSync("git", ["ls-files", "*README.md"], { cwd: ROOT, encoding: "utf8" });
  return listed.split("\n").filter(Boolean);
}

/** One README's commands with where each starts; a line ending in `\` continues on the next. */
function commandsIn(file) {
  const found = [];
  let fence;
  let pending;
  readFileSync(join(ROOT, file), "utf8")
    .split("\n")
    .forEach((line, index) => {
      const at = `${file}:${index + 1}`;
      const marker = line.match(/^\s*```(\w*)/);
      if (marker) fence = fence === undefined ? marker[1] : undefined;
      else if (fence === undefined) {
        for (const [, span] of line.matchAll(/`([^`]+)`/g))
          if (INLINE_COMMAND.test(span)) found.push({ at, command: span });
      } else if (SHELL_FENCES.has(fence) && line.trim() && !line.trim().startsWith("#")) {
        const text = line.trim().replace(/\\$/, "").trim();
        pending = pending ? { ...pending, command: `${pending.command} ${text}` } : { at, command: text };
        if (!line.trimEnd().endsWith("\\")) {
          found.push(pending);
          pending = undefined;
        }
      }
    });
  return found;
}

/** Each distinct command once, with every place it appears. */
function allCommands() {
  const byText = new Map();
  for (const { at, command } of readmes().flatMap(commandsIn)) {
    const entry = byText.get(command) ?? { command, at: [] };
    entry.at.push(at);
    byText.set(command, entry);
  }
  return [...byText.values()];
}

/** The lines `.ci/run` runs: README commands it runs itself need no second run here. */
function ciCommands() {
  return new Set(
    readFileSync(join(ROOT, ".ci/run"), "utf8")
      .split("\n")
      .map((line) => line.trim()),
  );
}

function classify(command, ci) {
  // An `a && b` chain counts as run when .ci/run runs each part, on lines of their own.
  if (command.split(" && ").every((part) => ci.has(part.trim()))) return { skip: ".ci/run runs it" };
  const skip = SKIPS.find(([pattern]) => pattern.test(command));
  if (skip) return { skip: skip[1] };
  const run = RUNS.find(([pattern]) => pattern.test(command));
  return run ? run[1] : { unclassified: true };
}

/** Packs the packages as published and installs them into a scratch project with npm, as a reader would. */
function installPackedServer() {
  const project = mkdtempSync(join(tmpdir(), "toolkits-readme-"));
  const pnpm = pnpmCommand();
  for (const dir of PUBLISHED_PACKAGES)
    execFileSync(pnpm[0], [...pnpm.slice(1), "pack", "--pack-destination", project], {
      cwd: join(ROOT, dir),
      stdio: "pipe",
    });
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "readme-commands", private: true }));
  const tarballs = readdirSync(project).filter((file) => file.endsWith(".tgz"));
  execFileSync(
    "npm",
    ["install", "--no-audit", "--no-fund", "--loglevel=error", ...tarballs.map((f) => `./${f}`)],
    {
      cwd: project,
      stdio: "pipe",
    },
  );
  return project;
}

/** The environment commands run in: no credentials of the person running this, an empty config. */
function commandEnv(project, config) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(PAGER|GOOGLE|MARKETING|MCP)_/.test(name)),
  );
  return {
    ...env,
    XDG_CONFIG_HOME: config,
    PATH: `${join(project, "node_modules/.bin")}${delimiter}${env.PATH}`,
  };
}

/** Starts a command in bash, in its own process group so that stopping it stops npx's children too. */
function start(command, cwd, env) {
  const child = spawn("bash", ["-c", command], { cwd, env, detached: true, stdio: "pipe" });
  const output = { out: "", err: "" };
  child.stdout.on("data", (chunk) => {
    output.out += chunk;
  });
  child.stderr.on("data", (chunk) => {
    output.err += chunk;
  });
  const exited = new Promise((done) => child.on("close", (code, signal) => done({ code, signal })));
  const stop = (signal) => {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // Already gone.
    }
  };
  return { child, output, exited, stop };
}

/** Resolves to the exit, or to undefined when the limit passes first (and then the command is killed). */
async function within(run, limit) {
  let timer;
  const timeout = new Promise((done) => {
    timer = setTimeout(done, limit);
  });
  const result = await Promise.race([run.exited, timeout]);
  clearTimeout(timer);
  if (!result) run.stop("SIGKILL");
  return result;
}

/** The last line a command printed, npm's warnings about this machine's settings aside. */
const lastLine = (text) =>
  text
    .split("\n")
    .filter((line) => line.trim() && !line.startsWith("npm warn"))
    .at(-1) ?? "";

function exitProblem(result, run, limit) {
  if (!result) return `still running after ${limit / 1000} s`;
  if (result.code === 0) return undefined;
  return `exit ${result.code ?? result.signal}: ${lastLine(run.output.err || run.output.out)}`;
}

/** A one-shot command: stdin closed, must exit 0. */
async function once(run, limit) {
  run.child.stdin.end();
  return exitProblem(await within(run, limit), run, limit);
}

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "readme-commands", version: "0" },
  },
};

/** A stdio server: it must answer an initialize request, then exit 0 once stdin closes. */
async function stdio(run, limit) {
  run.child.stdin.end(`${JSON.stringify(INITIALIZE)}\n`);
  const problem = exitProblem(await within(run, limit), run, limit);
  if (problem) return problem;
  return /"id":1\b/.test(run.output.out) && run.output.out.includes('"result"')
    ? undefined
    : `no answer to initialize: ${lastLine(run.output.err || run.output.out)}`;
}

/** The port an HTTP server command listens on: its --port, else the server's default. */
const portOf = (command) => command.match(/--port (\d+)/)?.[1] ?? "3000";

async function healthy(port) {
  try {
    return (await fetch(`http://127.0.0.1:${port}/healthz`)).ok;
  } catch {
    return false;
  }
}

/** An HTTP server: it must answer GET /healthz on its port while it runs; then it is stopped. */
async function http(run, limit, command) {
  const port = portOf(command);
  let gone = false;
  run.exited.then(() => {
    gone = true;
  });
  const deadline = Date.now() + limit;
  while (!gone && Date.now() < deadline && !(await healthy(port)))
    await new Promise((done) => setTimeout(done, 250));
  const answered = !gone && Date.now() < deadline;
  run.stop("SIGTERM");
  if (!(await within(run, 10_000))) return "did not stop on SIGTERM";
  return answered ? undefined : `no answer on port ${port}: ${lastLine(run.output.err || run.output.out)}`;
}

const KINDS = { once, stdio, http };

async function check({ command, kind, limit }, project, env) {
  if (kind === "http" && (await healthy(portOf(command))))
    return "its port already answers: another server is running";
  const run = start(command, NAMES_SERVER.test(command) ? project : ROOT, env);
  return KINDS[kind](run, limit, command);
}

async function main() {
  const ci = ciCommands();
  const commands = allCommands().map((entry) => ({ ...entry, ...classify(entry.command, ci) }));
  const project = installPackedServer();
  const config = mkdtempSync(join(tmpdir(), "toolkits-readme-config-"));
  const failures = [];
  let passed = 0;
  try {
    for (const entry of commands) {
      const where = entry.at.join(", ");
      if (entry.skip) {
        console.log(`skip  ${entry.command}\n      ${where}: ${entry.skip}`);
        continue;
      }
      const began = Date.now();
      const problem = entry.unclassified
        ? "no rule says whether it is safe to run: add one to scripts/readme-commands.mjs"
        : await check(entry, project, commandEnv(project, config));
      const seconds = ((Date.now() - began) / 1000).toFixed(1);
      console.log(`${problem ? "FAIL" : "ok  "}  ${entry.command}\n      ${where} (${seconds} s)`);
      if (problem) failures.push(`${where}: ${entry.command}\n  ${problem}`);
      else passed++;
    }
  } finally {
    rmSync(project, { recursive: true, force: true });
    rmSync(config, { recursive: true, force: true });
  }
  if (failures.length) console.log(`\nREADME commands that failed:\n${failures.join("\n")}`);
  const skipped = commands.filter((entry) => entry.skip).length;
  console.log(`readme-commands: ${passed} passed, ${failures.length} failed, ${skipped} skipped`);
  if (failures.length) process.exit(1);
}

await main();
