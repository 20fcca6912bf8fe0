#!/usr/bin/env node
// Runs the official MCP conformance suite's protocol scenarios against the built HTTP server, for
// each protocol revision we serve, in two set-ups: the sandbox (`toolkits-mcp --transport http
// --sandbox`) and the built-in authorization server on, the suite given an access token
// (conformance-builtin.mjs); each at `/mcp` and at a connector URL (`/mcp/pager+sheets/readonly`,
// which has a tool with an `Mcp-Param` header).
// The suite needs Node 22 (it calls fs.globSync) while the workspace runs on Node 20, so a Node 22
// binary from the `node` npm package and the suite are installed into a cache directory on first use.
//
// Usage: node scripts/conformance.mjs [--scenario NAME] [--spec-version REV] [--url URL]
//                                     [--setup sandbox|builtin] [--path PATH]…
//                                     [--expected-failures FILE]
// --path chooses the server's paths to test (repeatable); --url tests that URL instead.
// The expected failures default to scripts/conformance-expected-failures.yml: the two checks that
// need the suite's own diagnostic tool.
// Exit 1 when any check fails. Run after `pnpm build`.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { startWithBuiltinToken } from "./conformance-builtin.mjs";
import { cacheDir, installNode } from "./node-binary.mjs";

const SUITE_VERSION = "0.2.0-alpha.12";
const NODE_MAJOR = "22";

/** The scenarios the server must pass, by protocol revision; the rest call fixture tools we don't have. */
const SCENARIOS = {
  "2025-11-25": ["server-initialize", "ping", "tools-list", "tools-call-error", "dns-rebinding-protection"],
  "2026-07-28": [
    "server-stateless",
    "tools-list",
    "tools-call-error",
    "dns-rebinding-protection",
    "caching",
    "http-header-validation",
    "http-custom-header-server-validation",
  ],
};

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SERVER_CLI = join(ROOT, "apps/mcp-server/dist/cli.js");
const SERVER_START_TIMEOUT_MS = 20_000;
/** How the server is started for a run: each set-up is tested with every scenario. */
const SETUPS = {
  sandbox: () => startServer(["--sandbox"]),
  builtin: () => startWithBuiltinToken(startServer),
};
/** The server's URLs tested by default: the whole server, and one connector URL. */
const PATHS = ["/mcp", "/mcp/pager+sheets/readonly"];
const DETAILS_MAX_CHARS = 400;

function options() {
  const { values } = parseArgs({
    options: {
      scenario: { type: "string" },
      "spec-version": { type: "string" },
      url: { type: "string" },
      "expected-failures": { type: "string" },
      setup: { type: "string" },
      path: { type: "string", multiple: true },
    },
  });
  const revision = values["spec-version"];
  if (revision && !SCENARIOS[revision]) {
    throw new Error(`--spec-version must be one of ${Object.keys(SCENARIOS).join(", ")}`);
  }
  if (values.setup && !SETUPS[values.setup])
    throw new Error(`--setup must be one of ${Object.keys(SETUPS).join(", ")}`);
  return {
    setups: values.url ? ["url"] : values.setup ? [values.setup] : Object.keys(SETUPS),
    revisions: revision ? [revision] : Object.keys(SCENARIOS),
    scenario: values.scenario,
    url: values.url,
    paths: values.path ?? PATHS,
    // The suite resolves the file from its own working directory, which is ours; make that explicit.
    baseline: resolve(values["expected-failures"] ?? join(ROOT, "scripts/conformance-expected-failures.yml")),
  };
}

/** Installs Node 22 and the suite into the cache (per suite version) unless a working copy is already there. */
function ensureSuite() {
  const dir = cacheDir(join("toolkits-conformance", `${SUITE_VERSION}-node${NODE_MAJOR}`));
  const cli = join(dir, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
  if (!existsSync(cli)) rmSync(dir, { recursive: true, force: true });
  const node = installNode(dir, NODE_MAJOR, [`@modelcontextprotocol/conformance@${SUITE_VERSION}`]);
  return { node, cli };
}

/**
 * Starts the built server on a free port with `args` and `env` besides the environment, and resolves
 * once it logs its URL (a JSON line on stderr with a "url" field). The host becomes `localhost`: the
 * DNS-rebinding scenario requires a localhost URL and sends it as Host and Origin.
 */
function startServer(args, env = {}) {
  if (!existsSync(SERVER_CLI)) throw new Error(`${SERVER_CLI} is missing: run pnpm build first`);
  const child = spawn(
    process.execPath,
    [SERVER_CLI, "--transport", "http", ...args, "--port", "0", "--log-level", "info"],
    {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, ...env },
    },
  );
  const log = [];
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => fail("did not log its URL in time"), SERVER_START_TIMEOUT_MS);
    function fail(reason) {
      clearTimeout(timer);
      child.kill();
      reject(new Error(`The server ${reason}:\n${log.join("\n")}`));
    }
    child.once("exit", (code) => fail(`exited with code ${code}`));
    let started = false;
    let pending = "";
    child.stderr.setEncoding("utf8");
    // Keeps reading after start-up: the log is shown when a check fails, and an unread pipe would fill.
    child.stderr.on("data", (chunk) => {
      const lines = (pending + chunk).split("\n");
      pending = lines.pop();
      log.push(...lines);
      const url = started ? undefined : lines.map(urlIn).find(Boolean);
      if (!url) return;
      started = true;
      clearTimeout(timer);
      child.removeAllListeners("exit");
      url.hostname = "localhost";
      resolvePromise({ url: url.href, log, stop: () => stopServer(child) });
    });
  });
}

/** The URL in a JSON log line, or undefined for any other line. */
function urlIn(line) {
  try {
    const { url } = JSON.parse(line);
    return typeof url === "string" ? new URL(url) : undefined;
  } catch {
    return undefined;
  }
}

/** Stops the server with SIGTERM, as a deployment would, and waits for it to exit. */
function stopServer(child) {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolvePromise) => {
    child.once("exit", resolvePromise);
    child.kill("SIGTERM");
  });
}

/** Runs one scenario at one revision; resolves to the suite's exit code, its output and its checks. */
function runScenario(suite, url, setup, revision, scenario, resultsDir, baseline) {
  const outDir = join(resultsDir, setup, revision, scenario);
  const args = [suite.cli, "server", "--url", url, "--scenario", scenario, "--spec-version", revision];
  args.push("-o", outDir, ...(baseline ? ["--expected-failures", baseline] : []));
  const child = spawn(suite.node, args, { env: { ...process.env, NO_COLOR: "1" } });
  let output = "";
  child.stdout.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr.on("data", (chunk) => {
    output += chunk;
  });
  return new Promise((resolvePromise) => {
    child.on("close", (code) => {
      resolvePromise({
        setup,
        revision,
        scenario,
        code,
        output: stripAnsi(output),
        checks: readChecks(outDir),
      });
    });
  });
}

/** The checks the suite saved, or undefined when it ran none (a scenario not applicable at the revision). */
function readChecks(outDir) {
  if (!existsSync(outDir)) return undefined;
  const [run] = readdirSync(outDir);
  const file = run && join(outDir, run, "checks.json");
  return file && existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : undefined;
}

function stripAnsi(text) {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes start with ESC.
  return text.replace(/\u001b\[[0-9;]*m/g, "");
}

function count(checks, status) {
  return (checks ?? []).filter((check) => check.status === status).length;
}

const COLUMNS = [
  ["passed", "SUCCESS"],
  ["failed", "FAILURE"],
  ["warnings", "WARNING"],
  ["skipped", "SKIPPED"],
];

function printTable(results) {
  const width = Math.max(...results.map((result) => result.scenario.length)) + 2;
  const header = COLUMNS.map(([title]) => title.padStart(title.length + 2)).join("");
  console.log(`\n${"setup".padEnd(9)}${"revision".padEnd(12)}${"scenario".padEnd(width)}${header}`);
  for (const { setup, revision, scenario, code, checks } of results) {
    const cells = COLUMNS.map(([title, status]) => String(count(checks, status)).padStart(title.length + 2));
    const verdict = !checks ? (code === 0 ? "not applicable" : "ERROR") : code === 0 ? "ok" : "FAIL";
    console.log(
      `${setup.padEnd(9)}${revision.padEnd(12)}${scenario.padEnd(width)}${cells.join("")}  ${verdict}`,
    );
  }
}

/** Prints every failed or warned check with its message and (shortened) details. */
function printProblems(results, baseline) {
  for (const { setup, revision, scenario, code, output, checks } of results) {
    const problems = (checks ?? []).filter(
      (check) => check.status === "FAILURE" || check.status === "WARNING",
    );
    if (!problems.length && code === 0) continue;
    console.log(`\n${setup} ${revision} ${scenario}`);
    for (const check of problems) {
      console.log(`  ${check.status} ${check.id}: ${check.errorMessage ?? check.description}`);
      if (check.details) console.log(`    details: ${shorten(JSON.stringify(check.details))}`);
    }
    // Without checks the suite itself failed; with a baseline its verdict is in its closing lines.
    if (!checks) console.log(output.trim());
    else if (baseline) console.log(baselineVerdict(output));
  }
}

function shorten(text) {
  return text.length > DETAILS_MAX_CHARS ? `${text.slice(0, DETAILS_MAX_CHARS)}…` : text;
}

/** The suite's closing expected-failures report: from its first heading to the end. */
function baselineVerdict(output) {
  const lines = output.trimEnd().split("\n");
  const start = lines.findIndex((line) =>
    /^(Expected failures|Stale baseline|Unexpected failures|Baseline )/.test(line),
  );
  return start === -1 ? "" : lines.slice(start).join("\n");
}

async function main() {
  const opts = options();
  const suite = ensureSuite();
  const resultsDir = mkdtempSync(join(tmpdir(), "toolkits-conformance-"));
  const results = [];
  const logs = [];
  for (const setup of opts.setups) {
    const server = opts.url ? undefined : await SETUPS[setup]();
    // A crash or Ctrl-C must not leave the server running.
    const stop = async () => server?.stop();
    const interrupted = () => stop().then(() => process.exit(130));
    process.once("SIGINT", interrupted);
    const urls = opts.url ? [opts.url] : opts.paths.map((path) => new URL(path, server.url).href);
    try {
      for (const [index, url] of urls.entries()) {
        console.log(`Testing ${url} (${setup}) with @modelcontextprotocol/conformance ${SUITE_VERSION}`);
        // Each URL's results apart; its scenarios named with its path after the first.
        const dir = join(resultsDir, String(index));
        const path = index ? ` ${new URL(url).pathname}` : "";
        for (const revision of opts.revisions) {
          for (const scenario of opts.scenario ? [opts.scenario] : SCENARIOS[revision]) {
            const result = await runScenario(suite, url, setup, revision, scenario, dir, opts.baseline);
            results.push({ ...result, scenario: `${scenario}${path}` });
          }
        }
      }
    } finally {
      await stop();
      process.off("SIGINT", interrupted);
    }
    if (server) logs.push(`Server log (${setup}):\n${server.log.join("\n")}`);
  }
  printTable(results);
  printProblems(results, opts.baseline);
  const failed = results.filter((result) => result.code !== 0);
  if (!failed.length) {
    rmSync(resultsDir, { recursive: true, force: true });
    return;
  }
  console.log(`\n${logs.join("\n\n")}`);
  console.log(
    `\n${failed.length} scenario run(s) failed; the suite's checks.json files are in ${resultsDir}`,
  );
  process.exitCode = 1;
}

main().catch((error) => {
  console.error(error.message);
  process.exit(1);
});
