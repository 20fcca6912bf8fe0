#!/usr/bin/env node
// What per-user mode (`--credentials per-user`) adds to one tool call over shared mode, in one
// process: Pager.GetService through the tool registry the HTTP server calls, on (a) the shared host
// (the server's token from the environment) and (b) the per-user host for a person whose PagerDuty
// connection is sealed in a redis-server on loopback, so each call reads the record from Redis,
// opens it (AES-256-GCM), counts the request against the person's budget in Redis and writes an
// audit line; (c) is (b) for a 2025 client, whose declared capabilities the HTTP layer reads from
// the store only when a call needs the person to connect an account (so, here, never). Both hosts answer from the pager sandbox's fakes in this process (no network).
// HTTP and caller authentication are left out. Rounds alternate between the three so drift affects
// all alike. The team code is TypeScript the dist bundle hides in a chunk, so it is bundled here
// with esbuild (as scripts/bundle.mjs does) into a temporary directory first.
// Needs redis-server (Debian: `sudo apt-get install -y redis-server`).
// Usage: node bench/per-user.mjs [--calls 2000] [--warmup 200] [--tool Pager.GetService] [--args '{…}']
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { fixed, importBundled, percentile, report, timed } from "./lib.mjs";
import { startRedis } from "./redis.mjs";

// The per-user calls write one audit line each to stderr, as in production: the measuring runs in
// a child whose stderr is a pipe this process drains, counting those lines and passing on the rest.
const CHILD = "TOOLKITS_PER_USER_BENCH_CHILD";
if (!process.env[CHILD]) {
  process.exitCode = await superviseChild();
} else {
  await measure();
}

async function superviseChild() {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: ["ignore", "inherit", "pipe"],
    env: { ...process.env, [CHILD]: "1" },
  });
  let auditLines = 0;
  createInterface({ input: child.stderr }).on("line", (line) => {
    if (line.includes('"msg":"tool call"')) auditLines++;
    else process.stderr.write(`${line}\n`);
  });
  const code = await new Promise((resolve) => child.once("close", (exitCode) => resolve(exitCode ?? 1)));
  if (code === 0)
    console.log(`Audit lines the per-user calls wrote to stderr (a pipe, drained): ${auditLines}`);
  return code;
}

async function measure() {
  const { values } = parseArgs({
    options: {
      calls: { type: "string", default: "2000" },
      warmup: { type: "string", default: "200" },
      tool: { type: "string", default: "Pager.GetService" },
      args: { type: "string" },
    },
  });
  const CALLS = Number(values.calls);
  const WARMUP = Number(values.warmup);
  const ROUNDS = 10;
  const GOAL_MS = 1;
  const CHECK_CALLS = 100;
  const PRINCIPAL = "https://idp.example.com/#bench-person";
  const CLIENT_ID = "bench-client";
  const CALLER = { principal: PRINCIPAL, clientId: CLIENT_ID, key: "bench-caller" };

  const work = mkdtempSync(join(tmpdir(), "toolkits-per-user-bench-"));
  let redis;
  let team;
  let seedStore;
  let raw;
  try {
    const code = await bundleTeam(work);
    redis = await startRedis(work);
    const logger = stderrWarnings();
    const box = code.sandbox();
    const fakeFetch = await code.sandboxFetch(box.handlers, async (input) => {
      throw new TypeError(`This benchmark sends nothing to the network (asked for ${input.url ?? input}).`);
    });
    const args = values.args
      ? JSON.parse(values.args)
      : values.tool === "Pager.GetService"
        ? { service_id: box.account.services[0].id }
        : {};
    const hostOptions = { logger, maxResultBytes: 100_000 };
    // Shared mode: the server's own token, from the environment, for every caller.
    const shared = {
      ...code.environmentHost(hostOptions, { PAGER_ACCESS_TOKEN: box.tokens.pager }),
      fetch: fakeFetch,
    };

    // Per-user mode, opened as the server opens it, with budgets too large to ever make a call wait
    // (each request is still counted in Redis).
    const storeKey = randomBytes(32).toString("base64");
    team = await code.openTeam(
      {
        storeUrl: redis.url,
        storeKey,
        rateLimits: "pager=10000000/60s",
        rateLimitWaitMs: 3_000,
        oauthClients: { pager: {}, google: {} },
        connectClient: {},
      },
      logger,
    );
    const publicUrl = "http://127.0.0.1:8080";
    const base = { ...code.environmentHost({ ...hostOptions, state: team.state }, {}), fetch: fakeFetch };
    const serving = team.serve(base, publicUrl, undefined, code.pagerToolkit.tools);

    // The person's PagerDuty connection, saved (sealed) the way the connect pages save it.
    seedStore = await code.openStore({ url: redis.url, key: storeKey }, logger);
    const connections = code.storedConnections(seedStore, publicUrl, { pager: {}, google: {} });
    const connect = (accessToken) =>
      connections.of(PRINCIPAL).save(
        code.grantOf({
          provider: "pager",
          connectedAt: Date.now(),
          account: "bench-person@example.com",
          accessToken,
          refreshToken: "bench-refresh-token",
          expiresAt: Date.now() + 24 * 3_600_000,
          scopes: ["read"],
          tokenType: "Bearer",
          server: {
            issuer: "https://identity.pagerduty.com",
            token_endpoint: "https://identity.pagerduty.com/oauth/token",
          },
          clientId: "bench-oauth-client",
        }),
      );
    await connect(box.tokens.pager);
    await serving.clients.remember(CALLER, {});

    const tools = code.pagerToolkit.tools;
    const sharedRegistry = code.createToolRegistry(tools, shared);
    const perUserRegistry = code.createToolRegistry(tools, serving.host);
    const scope = (principal, urlElicitation) => ({
      signal: new AbortController().signal,
      principal,
      urlElicitation,
    });
    const call = async (registry, principal, urlElicitation) => {
      const result = await registry.call(values.tool, args, scope(principal, urlElicitation));
      if (result.isError) throw new Error(`${values.tool}: ${JSON.stringify(result.content).slice(0, 300)}`);
    };
    const runners = {
      shared: () => call(sharedRegistry, undefined),
      perUser: () => call(perUserRegistry, PRINCIPAL),
      // What the HTTP layer does for a 2025 client, which declared its capabilities at initialize.
      perUser2025: () =>
        call(
          perUserRegistry,
          PRINCIPAL,
          code.elicitationOf("legacy", {}, () => serving.clients.recall(CALLER)),
        ),
    };

    // Evidence that nothing is cached: the record in Redis is sealed, each call sends a GET for it,
    // and a token changed in the store between two calls is the one the next call uses.
    raw = await rawClient(redis.url);
    const [recordKey] = await raw.keys("tk:conn:*:pager");
    const record = (recordKey && (await raw.get(recordKey))) ?? "";
    const sealed = record.startsWith("v2.") && !record.includes(box.tokens.pager);
    const perCall = async (run) => {
      const before = await commandCounts(raw);
      for (let i = 0; i < CHECK_CALLS; i++) await run();
      const after = await commandCounts(raw);
      return [...after]
        .map(([name, count]) => [name, (count - (before.get(name) ?? 0)) / CHECK_CALLS])
        .filter(([name, count]) => name !== "info" && count > 0)
        .map(([name, count]) => `${name} ${fixed(count, 2)}`)
        .join(", ");
    };
    const perUserCommands = await perCall(runners.perUser);
    const perUser2025Commands = await perCall(runners.perUser2025);
    await connect("a-token-the-fake-refuses");
    const refused = await runners.perUser().then(
      () => false,
      () => true,
    );
    await connect(box.tokens.pager);
    await runners.perUser();

    const ms = { shared: [], perUser: [], perUser2025: [] };
    for (const run of Object.values(runners)) await timed(run, WARMUP, []);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, run] of Object.entries(runners)) await timed(run, CALLS / ROUNDS, ms[name]);
    }

    const at = (name, p) => percentile(ms[name], p);
    const row = (measure, name) => ({
      measure,
      "p50 ms": fixed(at(name, 50), 3),
      "p90 ms": fixed(at(name, 90), 3),
      "p99 ms": fixed(at(name, 99), 3),
    });
    const overhead = (measure, name) => ({
      measure,
      "p50 ms": fixed(at(name, 50) - at("shared", 50), 3),
      "p90 ms": fixed(at(name, 90) - at("shared", 90), 3),
      "p99 ms": fixed(at(name, 99) - at("shared", 99), 3),
      goal: `p50 < ${GOAL_MS}`,
      met: at(name, 50) - at("shared", 50) < GOAL_MS,
    });
    report(
      `${values.tool} through the tool registry, in-process fake upstream, Redis on loopback (${CALLS} calls each after ${WARMUP} to warm up)`,
      [
        row("shared mode (server's token from the environment)", "shared"),
        row("per-user mode (sealed connection read from Redis)", "perUser"),
        row("per-user mode, 2025 client (capabilities read only to connect)", "perUser2025"),
        overhead("per-user overhead (per-user − shared)", "perUser"),
        overhead("per-user overhead, 2025 client", "perUser2025"),
      ],
    );
    report("What each per-user call did (no cache: the token is read and opened on every call)", [
      {
        measure: "connection record in Redis sealed (v1.…, token not in the clear)",
        value: sealed ? "yes" : "NO",
      },
      // rate-limiter-flexible's eval runs set, incrby and pttl inside Redis: one round trip.
      {
        measure: "Redis commands per call, per-user (set, incrby, pttl within the eval)",
        value: perUserCommands,
      },
      { measure: "Redis commands per call, per-user 2025 client", value: perUser2025Commands },
      {
        measure: "token changed in Redis between calls: next call used the new one",
        value: refused ? "yes (refused by the fake)" : "NO (a cached token was used)",
      },
    ]);
    const p50 = at("perUser", 50) - at("shared", 50);
    console.log(`\nper-user overhead p50 ${fixed(p50, 3)} ms (goal < ${GOAL_MS} ms)`);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  } finally {
    await raw?.close();
    await seedStore?.close();
    await team?.close();
    await redis?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The server's team code and hosts, bundled from src/ with the same esbuild options as the server's
 * own bundle, with the core and pager builds they run on, so every part shares one copy of core.
 */
function bundleTeam(dir) {
  return importBundled(dir, "team", [
    'export { openTeam } from "./src/team/index.ts";',
    'export { openStore } from "./src/team/store/index.ts";',
    'export { storedConnections } from "./src/team/connections.ts";',
    'export { grantOf } from "./src/credentials/grant.ts";',
    'export { environmentHost } from "./src/host.ts";',
    'export { elicitationOf } from "./src/scope.ts";',
    'export { sandboxFetch } from "@toolkits/core";',
    'export { createToolRegistry } from "@toolkits/core/mcp";',
    'export { pagerToolkit } from "@toolkits/pager";',
    'export { sandbox } from "@toolkits/pager/sandbox";',
  ]);
}

/** A logger passing warnings and errors on to stderr, as the server's would at its default level. */
function stderrWarnings() {
  const line = (level) => (message, fields) =>
    process.stderr.write(`${level}: ${message}${fields ? ` ${JSON.stringify(fields)}` : ""}\n`);
  return { debug() {}, info() {}, warn: line("warn"), error: line("error") };
}

/** A client of the `redis` package (a dev dependency of the server) for reading Redis itself. */
async function rawClient(url) {
  const { createClient } = await import("redis");
  const client = createClient({ url });
  client.on("error", () => {});
  await client.connect();
  return client;
}

/** Calls so far of each Redis command, from INFO commandstats. */
async function commandCounts(client) {
  const text = await client.info("commandstats");
  return new Map(
    [...text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)].map(([, name, calls]) => [name, Number(calls)]),
  );
}
