// The team deployment of deploy/compose.yaml on loopback, with real parts: the built server in
// per-user mode as separate processes, a real redis-server, a real HAProxy in front, the mock
// identity provider and authorization servers (oauth2-mock-server) and the fake upstreams checking
// whose token they get. Or the single-process layout on the embedded file store.
import { type ChildProcess, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createClient } from "redis";
import { parseEntries } from "../../src/team/store/file-format.js";
import { CLI, freePort } from "../spawn.js";
import { type Pins, startBalancer } from "./haproxy.js";
import { type MockAuthServer, startMockAuthServer } from "./mock-oauth.js";
import { type RedisServer, startRedis } from "./redis.js";
import { type FakeUpstreams, startFakeUpstreams } from "./upstreams.js";

export type StoreKind = "redis" | "file";

export interface Layout {
  name: string;
  replicas: number;
  store: StoreKind;
  /** Settings of every replica besides the deployment's own (a toolkit's, say). */
  env?: Record<string, string>;
  /** Requests the balancer sends to one replica (by name, `replica1`…), whatever the rotation. */
  pins?: Pins;
}

/** One server process. */
export interface Replica {
  name: string;
  /** Its own `http://127.0.0.1:<port>`, bypassing the balancer. */
  url: string;
  port: number;
  /** Its standard error so far, earlier runs on the same port included: the JSON log lines. */
  stderr(): string;
  child: ChildProcess;
}

export interface Deployment {
  /** Where clients go: the balancer, or the one replica. */
  url: string;
  replicas: Replica[];
  redis: RedisServer | undefined;
  /** The embedded store's file, for the file layout. */
  storeFile: string | undefined;
  idp: MockAuthServer;
  pagerAuth: MockAuthServer;
  googleAuth: MockAuthServer;
  upstreams: FakeUpstreams;
  /** The front door's audience, for bearer tokens. */
  audience: string;
  /** The environment every replica was started with (secrets included, for leak checks). */
  env: Record<string, string>;
  /** Kills replica `index` at once (SIGKILL). */
  kill(index: number): void;
  /**
   * Starts replica `index` again on its port, with `env` over the deployment's, after `stopped`
   * (run while it is down: the file store's file is free then); behind a balancer, resolves once a
   * replica is in rotation.
   */
  restart(index: number, env?: Record<string, string>, stopped?: () => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}

/**
 * How the server's log lines name `principal`: the first 12 characters of base64url(sha256), as
 * the README documents, worked out here apart from the server's code.
 */
export const pseudonym = (principal: string): string =>
  createHash("sha256").update(principal, "utf8").digest("base64url").slice(0, 12);

/** The upstream limits for the test: PagerDuty 60 per 10 s, the others out of the way. */
export const RATE_LIMITS = "pager=60/10s,sheets-read=6000/10s,sheets-write=600/10s,marketing=100/1s";
export const PAGER_LIMIT = { requests: 60, windowMs: 10_000 };

export async function startDeployment(layout: Layout): Promise<Deployment> {
  const [idp, pagerAuth, googleAuth] = await Promise.all([
    startMockAuthServer(),
    startMockAuthServer(),
    startMockAuthServer(),
  ]);
  const upstreams = await startFakeUpstreams({
    pagerduty: { issuer: pagerAuth.url, jwks: { keys: pagerAuth.server.issuer.keys.toJSON() } },
    google: { issuer: googleAuth.url, jwks: { keys: googleAuth.server.issuer.keys.toJSON() } },
    pagerLimit: PAGER_LIMIT,
  });
  const home = await mkdtemp(join(tmpdir(), "toolkits-team-"));
  // Append-only persistence: what the store holds survives a Redis restart.
  const redis = layout.store === "redis" ? await startRedis({ args: ["--appendonly", "yes"] }) : undefined;
  const storeFile = layout.store === "file" ? join(home, "store.json") : undefined;
  const ports = await Promise.all(Array.from({ length: layout.replicas }, () => freePort()));
  const balancerPort = layout.replicas > 1 ? await freePort() : undefined;
  const url = `http://127.0.0.1:${balancerPort ?? ports[0]}`;
  const audience = "toolkits-mcp";
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    MCP_LOG_LEVEL: "info",
    MCP_STORE_URL: redis?.url ?? pathToFileURL(storeFile ?? "").href,
    MCP_STORE_KEY: randomBytes(32).toString("base64"),
    MCP_PUBLIC_URL: url,
    MCP_RATE_LIMITS: RATE_LIMITS,
    MCP_OAUTH_ISSUER: idp.url,
    MCP_OAUTH_AUDIENCE: audience,
    MCP_OAUTH_JWKS_URL: `${idp.url}/jwks`,
    MCP_CONNECT_CLIENT_ID: "connect-client",
    MCP_CONNECT_CLIENT_SECRET: `connect-${randomBytes(16).toString("hex")}`,
    PAGER_OAUTH_CLIENT_ID: "pager-client",
    PAGER_OAUTH_CLIENT_SECRET: `pager-${randomBytes(16).toString("hex")}`,
    PAGER_OAUTH_ISSUER: pagerAuth.url,
    GOOGLE_OAUTH_CLIENT_ID: "google-client",
    GOOGLE_OAUTH_CLIENT_SECRET: `google-${randomBytes(16).toString("hex")}`,
    GOOGLE_OAUTH_ISSUER: googleAuth.url,
    ...upstreams.env,
    ...layout.env,
  };
  const replicas = await Promise.all(
    ports.map((port, index) => launchReplica(`replica${index + 1}`, port, env)),
  );
  const balancer = balancerPort
    ? await startBalancer(
        balancerPort,
        Object.fromEntries(replicas.map((replica) => [replica.name, `127.0.0.1:${replica.port}`])),
        layout.pins,
      )
    : undefined;
  return {
    url,
    replicas,
    redis,
    storeFile,
    idp,
    pagerAuth,
    googleAuth,
    upstreams,
    audience,
    env,
    kill(index) {
      replicas[index]?.child.kill("SIGKILL");
    },
    async restart(index, extra = {}, whileStopped) {
      const old = replicas[index];
      if (!old) throw new Error(`no replica ${index}`);
      await stopped(old.child);
      await whileStopped?.();
      replicas[index] = await launchReplica(old.name, old.port, { ...env, ...extra }, old.stderr());
      await balancer?.serving();
    },
    async stop() {
      await balancer?.stop();
      await Promise.all(replicas.map((replica) => stopped(replica.child)));
      await Promise.all([idp.stop(), pagerAuth.stop(), googleAuth.stop(), upstreams.stop(), redis?.stop()]);
      await rm(home, { recursive: true, force: true });
    },
  };
}

/** Starts the built server on `port` and resolves once it says it listens. */
async function launchReplica(
  name: string,
  port: number,
  env: Record<string, string>,
  earlier = "",
): Promise<Replica> {
  const child = spawn(
    process.execPath,
    [CLI, "--transport", "http", "--credentials", "per-user", "--port", String(port)],
    {
      env,
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  process.once("exit", () => child.kill("SIGKILL"));
  let stderr = "";
  await new Promise<void>((resolve, reject) => {
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk;
      if (/"url":"http/.test(stderr)) resolve();
    });
    child.once("exit", (code) => reject(new Error(`${name} exited with ${code}: ${stderr}`)));
  });
  return { name, url: `http://127.0.0.1:${port}`, port, child, stderr: () => earlier + stderr };
}

async function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

/**
 * The names of the live records in `d`'s store: every Redis key (SCAN), or the live entries of the
 * store file as the file store reads it (none before its first write).
 * @throws Error when the store file is not a valid store.
 */
export async function storeRecordNames(d: Deployment): Promise<string[]> {
  if (d.redis) {
    const client = createClient({ url: d.redis.url });
    await client.connect();
    try {
      const names: string[] = [];
      for await (const batch of client.scanIterator({ COUNT: 1_000 })) names.push(...batch);
      return names;
    } finally {
      await client.close();
    }
  }
  const text = await readFile(d.storeFile ?? "", "utf8").catch(() => "");
  if (!text) return [];
  const entries = parseEntries(text);
  if (!(entries instanceof Map)) throw new Error(`the store file is not a store: ${entries.invalid}`);
  const now = Date.now();
  return [...entries].filter(([, entry]) => (entry.expiresAt ?? Infinity) > now).map(([name]) => name);
}

/** The one replica of a single-replica deployment. */
export function onlyReplica(d: Deployment): Replica {
  const [only] = d.replicas;
  if (!only) throw new Error(`${d.url} has no replica`);
  return only;
}
