import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { silentLogger, ToolError } from "@toolkits/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type GrantRecord, grantOf } from "../../src/credentials/grant.js";
import type { GrantStore } from "../../src/credentials/store.js";
import { teamGrants } from "../../src/credentials/team-grants.js";
import { storedConnections } from "../../src/team/connections.js";
import { teamCredentials } from "../../src/team/credentials.js";
import { hashKey, openStore, type TeamStore } from "../../src/team/store/index.js";

let directory: string;
let store: TeamStore;
let person: string;
let grants: GrantStore;

const clients = { pager: { clientId: "pager-client" }, google: { clientId: "google-client" } };
/** The key every grant had before labels: the default account's still. */
const legacyKey = (provider: string) => `tk:conn:${hashKey(person)}:${provider}`;

/** A PagerDuty connection whose access token is `<token>`, valid for an hour. */
const record = (token: string, overrides: Partial<GrantRecord> = {}): GrantRecord => ({
  provider: "pager",
  connectedAt: Date.now(),
  accessToken: token,
  expiresAt: Date.now() + 3_600_000,
  scopes: ["read"],
  tokenType: "bearer",
  server: { issuer: "https://id.example", token_endpoint: "https://id.example/token" },
  clientId: "pager-client",
  ...overrides,
});
const save = (token: string, overrides: Partial<GrantRecord> = {}) =>
  grants.save(grantOf(record(token, overrides)));
const access = async (label?: string) => {
  const grant = await grants.get("pager", label);
  return grant?.provider === "pager" ? grant.accessToken.reveal() : undefined;
};

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "team-accounts-"));
  store = await openStore(
    { url: pathToFileURL(join(directory, "store.json")).href, key: randomBytes(32).toString("base64") },
    silentLogger,
  );
});

afterAll(async () => {
  await store?.close();
  await rm(directory, { recursive: true, force: true });
});

beforeEach(() => {
  person = `https://id.test#${randomBytes(6).toString("hex")}`;
  grants = teamGrants(store, clients)(person);
});

describe("several accounts per person in the team store", () => {
  it("reads a record at the old key as the default account, labelled by its account", async () => {
    await store.set(legacyKey("pager"), record("legacy", { account: "Ops@Acme.example" }));
    const found = await grants.get("pager");
    expect(found?.label).toBe("ops");
    expect(await access("ops")).toBe("legacy");
    expect(await access("eu")).toBeUndefined();
    await store.set(legacyKey("google"), { ...record("g"), provider: "google" });
    expect((await grants.get("google"))?.label).toBe("default");
  });

  it("adds new accounts beside the default, leaving the old key's record where it was", async () => {
    await store.set(legacyKey("pager"), record("legacy"));
    expect(await save("eu-token", { label: "eu" })).toBe("eu");
    expect((await store.get<GrantRecord>(legacyKey("pager")))?.accessToken).toBe("legacy");
    expect(await access()).toBe("legacy");
    expect(await access("eu")).toBe("eu-token");
    expect(await access("default")).toBe("legacy");
    expect((await grants.list("pager")).map((grant) => grant.label)).toEqual(["default", "eu"]);
    // A label may come from an e-mail address: keys hold only its hash.
    const keys = await store.keys(`tk:conn:${hashKey(person)}:`);
    expect(keys.some((each) => each.endsWith(":eu"))).toBe(false);
  });

  it("names an unlabelled account from its account name, the first connected the default", async () => {
    expect(await save("a", { account: "alice@work.example" })).toBe("alice");
    expect(await save("b", { account: "alice@home.example" })).toBe("alice-home.example");
    expect(await save("a2", { account: "alice@work.example" })).toBe("alice");
    expect(await access()).toBe("a2");
    expect(await access("alice-home.example")).toBe("b");
  });

  it("removes one account only, passing the default to the earliest connected of the rest", async () => {
    await save("one", { label: "one", connectedAt: 1 });
    await save("three", { label: "three", connectedAt: 3 });
    await save("two", { label: "two", connectedAt: 2 });
    expect((await grants.remove("pager", "three"))?.label).toBe("three");
    expect((await grants.remove("pager"))?.label).toBe("one");
    expect(await access()).toBe("two");
    expect((await store.get<GrantRecord>(legacyKey("pager")))?.label).toBe("two");
    expect((await grants.list("pager")).map((grant) => grant.label)).toEqual(["two"]);
    expect(await grants.remove("pager", "nope")).toBeUndefined();
    await grants.remove("pager", "two");
    expect(await grants.list("pager")).toEqual([]);
  });

  it("makes another account the default by moving it to the old key", async () => {
    await save("eu", { label: "eu" });
    await save("us", { label: "us" });
    expect(await grants.makeDefault("pager", "us")).toBe(true);
    expect(await grants.makeDefault("pager", "apac")).toBe(false);
    expect(await access()).toBe("us");
    expect(await access("eu")).toBe("eu");
    expect((await grants.list("pager")).map((grant) => grant.label)).toEqual(["us", "eu"]);
  });

  it("locks each account's refresh apart, the default under the lock earlier versions take", async () => {
    await save("eu", { label: "eu" });
    await save("us", { label: "us" });
    const eu = await grants.lock("pager", "eu", 30_000);
    expect(eu).toBeDefined();
    expect(await grants.lock("pager", "eu", 30_000)).toBeUndefined();
    const us = await grants.lock("pager", "us", 30_000);
    expect(us).toBeDefined();
    // What an earlier version locks for the person's one account is the default's lock.
    expect(await store.tryLock(`tk:lock:refresh:pager:${hashKey(person)}`, 30_000)).toBeUndefined();
    await Promise.all([eu?.(), us?.()]);
  });

  it("serves a chosen label only, and answers an unknown one as a missing connection naming it", async () => {
    await save("eu", { label: "eu" });
    await save("us", { label: "us" });
    const connections = storedConnections(store, "https://mcp.test", clients);
    const credentials = teamCredentials(connections, silentLogger)(person);
    expect(await credentials.accessToken("pager", [], "us")).toEqual({ token: "us", label: "us" });
    // No label chosen: the default account's, which says which it is.
    expect(await credentials.accessToken("pager", [])).toEqual({ token: "eu", label: "eu" });
    const error = (await credentials.accessToken("pager", [], "apac").catch((caught) => caught)) as ToolError;
    expect(error).toBeInstanceOf(ToolError);
    expect(error.kind).toBe("unauthenticated");
    expect(error.message).toContain("Your PagerDuty account “apac” is not connected yet");
    expect(error.connect?.url).toMatch(/\/connect\/pager\?code=/);
    expect((await connections.list(person)).map((grant) => grant.label)).toEqual(["eu", "us"]);
  });
});
