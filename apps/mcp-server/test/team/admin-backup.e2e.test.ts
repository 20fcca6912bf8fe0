// Moving a deployment from the file store to Redis with `toolkits-mcp admin export` and `import`, on
// the built server with the built-in authorization server: Frank authorises a client and connects
// PagerDuty on the file store; the server stops, the store is exported, imported into a new
// redis-server, and the server starts again on Redis. Frank's client goes on calling as him, with
// the same tokens, and nobody signs in again. The backup holds no token in the clear.
import { randomBytes } from "node:crypto";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../spawn.js";
import { type IssuedTokens, refresh, register, signedInTokens, toolCall } from "./authorize-flow.js";
import { browser } from "./browser.js";
import { INSTALL_TIMEOUT_MS } from "./debian.js";
import { type Deployment, onlyReplica, startDeployment } from "./deployment.js";
import { type RedisServer, startRedis } from "./redis.js";

const CALLBACK = "http://127.0.0.1:49159/callback";

describe("moving from the file store to Redis: admin export, then admin import", () => {
  let d: Deployment;
  let redis: RedisServer;
  let tokens: IssuedTokens;
  let clientId: string;
  let backup: string;

  beforeAll(async () => {
    [d, redis] = await Promise.all([
      startDeployment({
        name: "admin-backup",
        replicas: 1,
        store: "file",
        env: { MCP_AUTHORIZATION_SERVER: "builtin", MCP_OAUTH_AUDIENCE: "", MCP_OAUTH_JWKS_URL: "" },
      }),
      startRedis(),
    ]);
    backup = join(d.env.HOME ?? "", "backup.jsonl");
    clientId = String(
      (await register(d.url, { client_name: "Backup test", redirect_uris: [CALLBACK] })).body.client_id,
    );
  }, INSTALL_TIMEOUT_MS + 120_000);
  afterAll(async () => {
    await d?.stop();
    await redis?.stop();
  });

  /** Calls `tool` with Frank's access token. */
  const call = (tool: string) => toolCall(d.url, tokens.access_token, tool);

  it("serves Frank on the file store: his client calls PagerDuty as him", { timeout: 60_000 }, async () => {
    const frank = browser({ user: "frank" });
    tokens = await signedInTokens(d, frank, { clientId, redirectUri: CALLBACK });
    const link = new RegExp(`${d.url}/connect/pager\\?code=[\\w-]+`).exec(
      (await call("Pager_WhoAmI")).text,
    )?.[0];
    expect((await frank.open(link ?? "")).text).toContain("Connected PagerDuty as frank@example.com");
    expect((await call("Pager_WhoAmI")).text).toContain("Frank Example");
  });

  it("moves the store with one export and one import while the server is stopped, then serves Frank from Redis", {
    timeout: 120_000,
  }, async () => {
    const fileEnv = d.env;
    const redisEnv = { ...d.env, MCP_STORE_URL: redis.url };
    await d.restart(0, { MCP_STORE_URL: redis.url }, async () => {
      const exported = await runCli(["admin", "export", backup], fileEnv);
      expect(exported.code, exported.stderr).toBe(0);
      expect(exported.stderr).toMatch(/Exported \d+ records and \d+ indexes/);
      const imported = await runCli(["admin", "import", backup], redisEnv);
      expect(imported.code, imported.stderr).toBe(0);
      expect(imported.stderr).toMatch(/Imported \d+ records and \d+ indexes/);
      // Whatever serves Frank now comes from Redis.
      await rm(d.storeFile ?? "");
    });
    expect(onlyReplica(d).child.exitCode).toBeNull();
    const answer = await call("Pager_WhoAmI");
    expect(answer.status).toBe(200);
    expect(answer.text).toContain("Frank Example");
    const refreshed = await refresh(d, clientId, tokens.refresh_token);
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    const people = JSON.parse((await runCli(["admin", "people", "--json"], redisEnv)).stdout);
    expect(people).toMatchObject([{ principal: `${d.idp.url}#frank`, connections: ["pager"], clients: 1 }]);
  });

  it("wrote a backup that holds no token in the clear", async () => {
    const text = await readFile(backup, "utf8");
    const issued = [
      tokens.access_token,
      tokens.refresh_token,
      ...d.idp.issued,
      ...d.pagerAuth.issued,
      d.env.MCP_STORE_KEY ?? "",
      d.env.MCP_CONNECT_CLIENT_SECRET ?? "",
    ].filter(Boolean);
    expect(issued.length).toBeGreaterThan(5);
    for (const token of issued) expect(text).not.toContain(token);
    expect(text).not.toContain("frank");
  });

  it("refuses an import under another key, and into a store already in use, saying what to do", async () => {
    const otherKey = {
      ...d.env,
      MCP_STORE_URL: redis.url,
      MCP_STORE_KEY: randomBytes(32).toString("base64"),
    };
    const wrongKey = await runCli(["admin", "import", backup], otherKey);
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toContain("set MCP_STORE_KEY to the key the store had when it was exported");
    const inUse = await runCli(["admin", "import", backup], { ...d.env, MCP_STORE_URL: redis.url });
    expect(inUse.code).toBe(1);
    expect(inUse.stderr).toContain("pass --merge");
  });
});
