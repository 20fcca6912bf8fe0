// The built binary in per-user mode when its store misbehaves: Redis frozen with SIGSTOP, a corrupt
// store file, a second process on the same file, a weak key, a store file in a shared directory.
// People are named static tokens; a tool call before they connect answers with a connect link,
// which takes the store (a single-use code is written), so it shows whether the store works.
import { randomBytes } from "node:crypto";
import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { jsonRpcAnswer } from "../clients.js";
import { type RunningServer, startHttpServer } from "../spawn.js";
import { INSTALL_TIMEOUT_MS, startRedis } from "./redis.js";
import { redisInfo } from "./store-helpers.js";

const TOKEN = randomBytes(20).toString("hex");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Per-user serving with Alice's named token, over the store at `storeUrl`. */
function perUser(storeUrl: string, key = randomBytes(32).toString("base64")): Promise<RunningServer> {
  return startHttpServer(["--credentials", "per-user"], {
    HOME: home,
    MCP_HTTP_BEARER_TOKENS: `alice:${TOKEN}`,
    MCP_STORE_URL: storeUrl,
    MCP_STORE_KEY: key,
  });
}

/** Alice calls Pager_WhoAmI (2026-07-28, stateless): the first text and how long it took. */
async function whoAmI(server: RunningServer): Promise<{ text: string; ms: number }> {
  const started = performance.now();
  const response = await fetch(server.url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${TOKEN}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "Pager_WhoAmI",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "Pager_WhoAmI",
        arguments: {},
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
    signal: AbortSignal.timeout(130_000),
  });
  const message = await jsonRpcAnswer(response);
  const result = message.result as { content?: { text?: string }[] } | undefined;
  const error = message.error as { message?: string } | undefined;
  return {
    text: error?.message ?? result?.content?.[0]?.text ?? `HTTP ${response.status}`,
    ms: performance.now() - started,
  };
}

/** What a call answers while the store works: a connect link for Alice. */
const CONNECT_LINK = /^unauthenticated: Your PagerDuty account is not connected yet/;

let home: string;
let servers: RunningServer[] = [];
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "toolkits-store-e2e-"));
});
afterEach(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  servers = [];
  await rm(home, { recursive: true, force: true });
});

async function started(server: Promise<RunningServer>): Promise<RunningServer> {
  const running = await server;
  servers.push(running);
  return running;
}

describe("per-user serving on Redis", () => {
  let redis: Awaited<ReturnType<typeof startRedis>>;
  let pid: number;
  beforeAll(async () => {
    redis = await startRedis();
    pid = await redisInfo(redis.url, "process_id");
  }, INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    process.kill(pid, "SIGCONT");
    await redis?.stop();
  });

  it("answers unavailable within 10 s of Redis freezing, and works again within 5 s of it thawing, without a restart", async () => {
    const server = await started(perUser(redis.url));
    expect((await whoAmI(server)).text).toMatch(CONNECT_LINK);
    expect((await fetch(new URL("/readyz", server.url))).status).toBe(200);
    process.kill(pid, "SIGSTOP");
    const frozenAt = performance.now();
    try {
      const readiness = await fetch(new URL("/readyz", server.url));
      expect(readiness.status).toBe(503);
      expect(await readiness.json()).toMatchObject({ ready: false, store: "unavailable" });
      const first = await whoAmI(server);
      expect(first.text).toMatch(
        /^unavailable: The credential store is unreachable \(.+\)\. Retry in a few seconds\./,
      );
      expect(first.ms).toBeLessThan(10_000);
      const next = await whoAmI(server);
      expect(next.text).toMatch(/^unavailable: /);
      expect(next.ms).toBeLessThan(1_000);
      // Frozen long enough for the server to give its connection up and try new ones.
      await sleep(15_000 - (performance.now() - frozenAt));
      expect((await whoAmI(server)).text).toMatch(/^unavailable: /);
    } finally {
      process.kill(pid, "SIGCONT");
    }
    const thawedAt = performance.now();
    let answer = await whoAmI(server);
    while (!CONNECT_LINK.test(answer.text) && performance.now() - thawedAt < 10_000) {
      await sleep(100);
      answer = await whoAmI(server);
    }
    expect(answer.text).toMatch(CONNECT_LINK);
    expect(performance.now() - thawedAt).toBeLessThan(5_000);
    expect(server.child.exitCode).toBeNull();
  }, 60_000);
});

describe("per-user serving on the file store", () => {
  it("answers a corrupt store file as unavailable, naming no path, with /readyz 503 while /healthz stays up", async () => {
    const file = join(home, "store.json");
    await writeFile(file, "{ not json", { mode: 0o600 });
    const server = await started(perUser(pathToFileURL(file).href));
    const answer = await whoAmI(server);
    expect(answer.text).toMatch(
      /^unavailable: The credential store is unreachable \(its file is not a valid store\)\. Retry in a few seconds\./,
    );
    expect(answer.text).not.toContain(home);
    expect(server.stderr()).toContain(`The store file ${file} is not valid (not JSON).`);
    expect((await fetch(new URL("/healthz", server.url))).status).toBe(200);
    const readiness = await fetch(new URL("/readyz", server.url));
    expect(readiness.status).toBe(503);
    const body = await readiness.text();
    expect(JSON.parse(body)).toMatchObject({ ready: false, store: "unavailable" });
    expect(body).not.toContain(home);
  });

  it("refuses a second process on the same store file, and the first keeps working", async () => {
    const url = pathToFileURL(join(home, "store.json")).href;
    const first = await started(perUser(url));
    expect((await whoAmI(first)).text).toMatch(CONNECT_LINK);
    const second = await perUser(url).then(
      async (running) => {
        servers.push(running);
        return "started";
      },
      (error: Error) => error.message,
    );
    expect(second).toContain(
      `The store file ${join(home, "store.json")} is in use by another process (its lock ${join(home, "store.json")}.lock is held).`,
    );
    expect(second).toMatch(/exited with 2/);
    expect((await whoAmI(first)).text).toMatch(CONNECT_LINK);
  }, 30_000);

  it("leaves the mode of a shared directory it is given alone", async () => {
    const shared = join(home, "shared");
    await mkdir(shared);
    await chmod(shared, 0o1777);
    const server = await started(perUser(pathToFileURL(join(shared, "store.json")).href));
    expect((await whoAmI(server)).text).toMatch(CONNECT_LINK);
    expect((await stat(shared)).mode & 0o7777).toBe(0o1777);
    expect((await stat(join(shared, "store.json"))).mode & 0o777).toBe(0o600);
    expect(await readdir(shared)).toEqual(["store.json", "store.json.lock"]);
  });

  it("refuses to start with a weak MCP_STORE_KEY, saying how to make one", async () => {
    const url = pathToFileURL(join(home, "store.json")).href;
    const zeros = Buffer.alloc(32).toString("base64");
    const refusal = await perUser(url, zeros).then(
      async (running) => {
        servers.push(running);
        return "started";
      },
      (error: Error) => error.message,
    );
    expect(refusal).toContain(
      "MCP_STORE_KEY must be 32 random bytes in base64 (it has only 1 different byte value, so it was not made at random); make one with `openssl rand -base64 32`.",
    );
    expect(refusal).toMatch(/exited with 2/);
  });
});
