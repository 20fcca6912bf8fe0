// The store's records as stored, for backups: a dump from either backend holds values still sealed
// with their expiry and indexes with their members', and restores into the other backend, where
// the values open under the same key, expire when they would have, and the indexes count the same.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { silentLogger } from "@toolkits/core";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type StoredRecord, type TeamStore } from "../../src/team/store/index.js";
import { INSTALL_TIMEOUT_MS, type RedisServer, startRedis } from "./redis.js";

const KEY = randomBytes(32).toString("base64");
const SECRET = `refresh-${randomBytes(12).toString("hex")}`;
const HOUR = 3_600_000;

let redis: RedisServer;
let dir: string;
beforeAll(async () => {
  redis = await startRedis();
  dir = await mkdtemp(join(tmpdir(), "toolkits-backup-"));
}, INSTALL_TIMEOUT_MS);
afterAll(async () => {
  await redis?.stop();
  await rm(dir, { recursive: true, force: true });
});

const fileUrl = (name: string) => pathToFileURL(join(dir, name)).href;
const open = (url: string) => openStore({ url, key: KEY }, silentLogger);

/** Writes the same records into `store`: a sealed secret for an hour, one for ever, an index, an expired one. */
async function fill(store: TeamStore): Promise<void> {
  await store.set("tk:conn:alice:pager", { refreshToken: SECRET }, HOUR);
  await store.set("tk:as:keys", { madeAt: 1 });
  await store.index("tk:people").add("alice-hash", HOUR);
  await store.index("tk:people").add("bob-hash", 2 * HOUR);
  await store.set("tk:code:gone", { principal: "x" }, 1);
  await new Promise((resolve) => setTimeout(resolve, 5));
}

const byKey = (records: StoredRecord[]) => new Map(records.map((record) => [record.key, record]));

describe.each([
  { from: "file", to: "redis" },
  { from: "redis", to: "file" },
])("a dump of the $from store, restored into the $to store", ({ from, to }) => {
  let source: TeamStore;
  let target: TeamStore;
  let dumped: StoredRecord[];

  beforeAll(async () => {
    const url = (kind: string, name: string) => (kind === "file" ? fileUrl(`${name}.json`) : redis.url);
    // Each pair has the Redis database to itself.
    await createClient({ url: redis.url })
      .connect()
      .then(async (client) => {
        await client.flushAll();
        await client.close();
      });
    source = await open(url(from, `${from}-source`));
    await fill(source);
    dumped = await source.dump("tk:");
    await source.close();
    target = await open(url(to, `${to}-target`));
  });
  afterAll(() => target?.close());

  it("holds the values as stored, sealed, with their expiry, and the indexes with their members'", () => {
    const records = byKey(dumped);
    expect([...records.keys()].sort()).toEqual(["tk:as:keys", "tk:conn:alice:pager", "tk:people"]);
    const secret = records.get("tk:conn:alice:pager");
    if (!secret || "members" in secret) throw new Error("no value");
    expect(secret.value).not.toContain(SECRET);
    expect((secret.expiresAt ?? 0) - Date.now()).toBeGreaterThan(HOUR - 60_000);
    const kept = records.get("tk:as:keys");
    expect(kept && "value" in kept && kept.expiresAt).toBeUndefined();
    const index = records.get("tk:people");
    if (!index || !("members" in index)) throw new Error("no index");
    expect(Object.keys(index.members).sort()).toEqual(["alice-hash", "bob-hash"]);
    expect((index.members["bob-hash"] ?? 0) - Date.now()).toBeGreaterThan(2 * HOUR - 60_000);
  });

  it("restores them: the values open under the same key, and keep their expiry and their indexes", async () => {
    await target.restore(dumped);
    expect(await target.get("tk:conn:alice:pager")).toEqual({ refreshToken: SECRET });
    expect(await target.get("tk:as:keys")).toEqual({ madeAt: 1 });
    expect((await target.index("tk:people").members()).sort()).toEqual(["alice-hash", "bob-hash"]);
    expect(await target.index("tk:people").count()).toBe(2);
    const again = byKey(await target.dump("tk:"));
    const secret = again.get("tk:conn:alice:pager");
    const before = byKey(dumped).get("tk:conn:alice:pager");
    if (!secret || "members" in secret || !before || "members" in before) throw new Error("no value");
    // Redis keeps milliseconds to live, read back against the clock: within a second.
    expect(Math.abs((secret.expiresAt ?? 0) - (before.expiresAt ?? 0))).toBeLessThan(1_000);
  });

  it("skips a record whose time has passed", async () => {
    await target.restore([{ key: "tk:code:late", value: "v1.x", expiresAt: Date.now() - 1 }]);
    expect(await target.has("tk:code:late")).toBe(false);
  });
});
