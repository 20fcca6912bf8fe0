// `toolkits-mcp admin` as an operator runs it, the built binary on a file store written as a
// deployment writes it: Alice signed in at the identity provider, connected PagerDuty and the
// marketing key and authorised a registered client; Bob (a named token) only called. Each listing
// as a table and as --json, and removing a client.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { silentLogger } from "@toolkits/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grantOf } from "../../src/credentials/grant.js";
import { teamGrants } from "../../src/credentials/team-grants.js";
import { storeAdapter } from "../../src/team/authorize/adapter.js";
import { remember } from "../../src/team/authorize/consent.js";
import { personActivity, pseudonymOf, rememberSignIn } from "../../src/team/people.js";
import { hashKey, openStore } from "../../src/team/store/index.js";
import { runCli } from "../spawn.js";

const ALICE = "https://idp.example.com#alice";
const BOB = "token:bob";
const CLIENT = "client-registered-1";
const SECRETS = {
  pager: `pager-access-${randomBytes(8).toString("hex")}`,
  refresh: `pager-refresh-${randomBytes(8).toString("hex")}`,
  pagerEu: `pager-eu-access-${randomBytes(8).toString("hex")}`,
  marketing: `marketing-key-${randomBytes(8).toString("hex")}`,
};
/** When everything in the store happened: 2026-01-05 14:03 UTC. */
const AT = Date.UTC(2026, 0, 5, 14, 3);
const WHEN = "2026-01-05 14:03 UTC";

let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolkits-admin-"));
  env = {
    MCP_STORE_URL: pathToFileURL(join(dir, "store.json")).href,
    MCP_STORE_KEY: randomBytes(32).toString("base64"),
  };
  const store = await openStore({ url: env.MCP_STORE_URL ?? "", key: env.MCP_STORE_KEY ?? "" }, silentLogger);
  await rememberSignIn(store, ALICE, "alice@example.com");
  const grants = teamGrants(store, { pager: { clientId: "pager-client" }, google: {} })(ALICE);
  await grants.save(
    grantOf({
      provider: "pager",
      connectedAt: AT,
      account: "Alice Example",
      accessToken: SECRETS.pager,
      refreshToken: SECRETS.refresh,
      scopes: ["read"],
      server: {
        issuer: "https://identity.pagerduty.com",
        token_endpoint: "https://identity.pagerduty.com/t",
      },
      clientId: "pager-client",
    }),
  );
  // A second PagerDuty account, under its own label: the first stays the default.
  await grants.save(
    grantOf({
      provider: "pager",
      label: "eu",
      connectedAt: AT,
      account: "Alice EU",
      accessToken: SECRETS.pagerEu,
      scopes: ["read"],
      server: {
        issuer: "https://identity.eu.pagerduty.com",
        token_endpoint: "https://identity.eu.pagerduty.com/t",
      },
      clientId: "pager-client",
    }),
  );
  await grants.save(
    grantOf({ provider: "marketing", connectedAt: AT, apiKey: SECRETS.marketing, region: "eu" }),
  );
  const activity = personActivity(store, silentLogger, () => AT);
  activity.called(ALICE);
  activity.used(ALICE, "pager");
  personActivity(store, silentLogger, () => AT - 60_000).called(BOB);
  const Adapter = storeAdapter(store, { invalidGrant: (message) => new Error(message), refreshGraceMs: 0 });
  await new Adapter("Client").upsert(CLIENT, {
    client_id: CLIENT,
    client_name: "Test agent",
    redirect_uris: ["http://127.0.0.1:33418/callback"],
    client_id_issued_at: AT / 1000,
  });
  await new Adapter("Grant").upsert("grant-1", { accountId: ALICE, clientId: CLIENT }, 3_600);
  const approval = {
    principal: ALICE,
    clientId: CLIENT,
    redirectUri: "http://127.0.0.1:33418/callback",
    resource: "https://mcp.example.com/mcp",
    scopes: ["pager", "sheets"],
    metadata: "digest",
  };
  await remember(store, approval, { name: "Test agent", grantId: "grant-1" });
  // The activity is written in the background.
  await new Promise((resolve) => setTimeout(resolve, 100));
  await store.close();
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function admin(...args: string[]) {
  const run = await runCli(["admin", ...args], env);
  for (const secret of Object.values(SECRETS)) {
    expect(run.stdout).not.toContain(secret);
    expect(run.stderr).not.toContain(secret);
  }
  return run;
}

const rows = (text: string) =>
  text
    .trimEnd()
    .split("\n")
    .map((line) => line.split(/\s{2,}/));

describe("toolkits-mcp admin", () => {
  it("people: a table of everyone, latest call first, with connections, clients and last call", async () => {
    const { code, stdout } = await admin("people");
    expect(code).toBe(0);
    expect(rows(stdout)).toEqual([
      ["PERSON", "PRINCIPAL", "NAME", "CONNECTIONS", "CLIENTS", "LAST CALL"],
      [
        pseudonymOf(hashKey(ALICE)),
        ALICE,
        "alice@example.com",
        "pager@alice-example, pager@eu, marketing@default",
        "1",
        WHEN,
      ],
      [pseudonymOf(hashKey(BOB)), BOB, "-", "-", "0", "2026-01-05 14:02 UTC"],
    ]);
  });

  it("people --json: the same for scripts, times in ISO 8601", async () => {
    const { code, stdout } = await admin("people", "--json");
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual([
      {
        person: pseudonymOf(hashKey(ALICE)),
        principal: ALICE,
        name: "alice@example.com",
        connections: ["pager", "marketing"],
        accounts: ["pager@alice-example", "pager@eu", "marketing@default"],
        clients: 1,
        signedIn: expect.any(String),
        lastCall: new Date(AT).toISOString(),
      },
      {
        person: pseudonymOf(hashKey(BOB)),
        principal: BOB,
        name: null,
        connections: [],
        accounts: [],
        clients: 0,
        signedIn: null,
        lastCall: new Date(AT - 60_000).toISOString(),
      },
    ]);
  });

  it("person: by the id log lines show, connections by provider and label (the default marked; account, scopes, last use) and authorised clients", async () => {
    const { code, stdout } = await admin("person", pseudonymOf(hashKey(ALICE)));
    expect(code).toBe(0);
    const [head = "", connections = "", clients = ""] = stdout.split("\n\n");
    expect(head).toMatch(new RegExp(`^Principal: +${ALICE}$`, "m"));
    expect(head).toMatch(new RegExp(`^Last call: +${WHEN}$`, "m"));
    expect(head).toContain("0 at /connect, 1 grant");
    expect(head).toContain("no refresh token at the identity provider");
    expect(rows(connections)).toEqual([
      ["CONNECTION", "LABEL", "ACCOUNT", "SCOPES", "CONNECTED", "LAST USE"],
      ["pager", "alice-example (default)", "Alice Example", "read", WHEN, WHEN],
      ["pager", "eu", "Alice EU", "read", WHEN, WHEN],
      ["marketing", "default (default)", "-", "-", WHEN, "-"],
    ]);
    expect(rows(clients)[0]).toEqual(["CLIENT", "NAME", "SCOPES", "AUTHORISED"]);
    expect(rows(clients)[1]?.slice(0, 3)).toEqual([CLIENT, "Test agent", "pager sheets"]);
  });

  it("person --json: by principal, the same for scripts", async () => {
    const { code, stdout } = await admin("person", ALICE, "--json");
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      person: pseudonymOf(hashKey(ALICE)),
      principal: ALICE,
      lastCall: new Date(AT).toISOString(),
      grants: 1,
      identityProvider: null,
      connections: [
        {
          provider: "pager",
          label: "alice-example",
          default: true,
          account: "Alice Example",
          scopes: ["read"],
          lastUse: new Date(AT).toISOString(),
        },
        { provider: "pager", label: "eu", default: false, account: "Alice EU" },
        { provider: "marketing", label: "default", default: true, scopes: [], lastUse: null },
      ],
      clients: [{ clientId: CLIENT, name: "Test agent", scopes: ["pager", "sheets"] }],
    });
  });

  it("person: someone the store does not know is exit code 1, saying how to name a person", async () => {
    const { code, stderr, stdout } = await admin("person", "carol");
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toContain('nobody in the store matches "carol"');
    expect(stderr).toContain("admin people");
  });

  it("clients and clients --json: the registered clients, their last use (to the day) and grants", async () => {
    const table = await admin("clients");
    expect(table.code).toBe(0);
    expect(rows(table.stdout)).toEqual([
      ["CLIENT", "NAME", "REDIRECT URIS", "REGISTERED", "LAST USE", "GRANTS"],
      [
        CLIENT,
        "Test agent",
        "http://127.0.0.1:33418/callback",
        WHEN,
        expect.stringMatching(/^\d{4}-\d\d-\d\d$/),
        "1",
      ],
    ]);
    const listed = JSON.parse((await admin("clients", "--json")).stdout);
    expect(listed).toEqual([
      {
        clientId: CLIENT,
        name: "Test agent",
        redirectUris: ["http://127.0.0.1:33418/callback"],
        registeredAt: new Date(AT).toISOString(),
        lastUse: expect.any(String),
        grants: 1,
      },
    ]);
    expect(Date.now() - Date.parse(listed[0].lastUse)).toBeLessThan(60_000);
  });

  it("remove-client: ends its grants and its registration, and people's record of authorising it", async () => {
    const removed = await admin("remove-client", CLIENT, "--json");
    expect(removed.code).toBe(0);
    expect(JSON.parse(removed.stdout)).toEqual({ clientId: CLIENT, registered: true, grants: 1 });
    expect(JSON.parse((await admin("clients", "--json")).stdout)).toEqual([]);
    expect((await admin("clients")).stdout).toBe("No registered clients.\n");
    expect(JSON.parse((await admin("person", ALICE, "--json")).stdout)).toMatchObject({
      grants: 0,
      clients: [],
    });
    const again = await admin("remove-client", CLIENT);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`no client "${CLIENT}" in the store`);
  });

  it("without MCP_STORE_KEY, says what to set and exits with 2", async () => {
    const { code, stderr } = await runCli(["admin", "people"], { MCP_STORE_URL: env.MCP_STORE_URL });
    expect(code).toBe(2);
    expect(stderr).toContain("set MCP_STORE_KEY");
  });
});
