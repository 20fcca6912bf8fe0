// The list of people: what the call path writes (at most once a minute per person and per
// connection, on each replica), and how `admin` finds a person by principal or by the id log lines show.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { silentLogger } from "@toolkits/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { personAsSessions, personGrants } from "../../src/team/authorize/adapter.js";
import { personSessions } from "../../src/team/connect/session.js";
import {
  ACTIVITY_EVERY_MS,
  findPerson,
  PEOPLE_INDEX,
  personActivity,
  pseudonymOf,
  readPerson,
  rememberSignIn,
} from "../../src/team/people.js";
import { indexPeople } from "../../src/team/people-indexes.js";
import { hashKey, openStore, type TeamStore } from "../../src/team/store/index.js";
import { endRemovedNames } from "../../src/team/token-names.js";

let dir: string;
let store: TeamStore;
/** The keys `store.set` was asked to write, in order. */
const writes: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolkits-people-"));
  const opened = await openStore(
    { url: pathToFileURL(join(dir, "store.json")).href, key: randomBytes(32).toString("base64") },
    silentLogger,
  );
  store = {
    ...opened,
    set: (key, value, ttlMs) => {
      writes.push(key);
      return opened.set(key, value, ttlMs);
    },
  };
});
afterAll(async () => {
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Resolves once the background writes so far have landed. */
const settled = () => new Promise((resolve) => setTimeout(resolve, 50));

describe("a person's activity", () => {
  it("is written at most once a minute per person and per connection, whatever the number of calls", async () => {
    let now = Date.UTC(2026, 0, 5, 14, 3);
    const activity = personActivity(store, silentLogger, () => now);
    const alice = "https://idp.example.com#alice";
    for (let call = 0; call < 50; call++) {
      activity.called(alice);
      activity.used(alice, "pager");
    }
    await settled();
    expect(writes).toEqual([`tk:person:${hashKey(alice)}:call`, `tk:person:${hashKey(alice)}:use:pager`]);

    now += ACTIVITY_EVERY_MS - 1;
    activity.called(alice);
    await settled();
    expect(writes).toHaveLength(2);

    now += 1;
    activity.called(alice);
    activity.used(alice, "google");
    await settled();
    expect(writes.slice(2)).toEqual([
      `tk:person:${hashKey(alice)}:call`,
      `tk:person:${hashKey(alice)}:use:google`,
    ]);
    const person = await readPerson(store, hashKey(alice));
    expect(person).toMatchObject({ principal: alice, lastCall: now, lastUse: { google: now } });
    expect(await store.index(PEOPLE_INDEX).members()).toContain(hashKey(alice));
  });
});

describe("finding a person", () => {
  it("takes their principal, the hash their records are under, or the 12-character id log lines show", async () => {
    const bob = "token:bob";
    await rememberSignIn(store, bob, "bob");
    const hash = hashKey(bob);
    expect(await findPerson(store, bob)).toBe(hash);
    expect(await findPerson(store, hash)).toBe(hash);
    expect(await findPerson(store, pseudonymOf(hash))).toBe(hash);
    expect(await findPerson(store, "nobody")).toBeUndefined();
    expect(await findPerson(store, "AAAAAAAAAAAA")).toBeUndefined();
  });
});

describe("a store written before the list of people", () => {
  it("is indexed once: people with connections or sessions, their sessions, grants and sessions at the authorization server", async () => {
    const carol = "https://idp.example.com#carol";
    const hash = hashKey(carol);
    await store.set(`tk:conn:${hashKey("token:dora")}:pager`, { provider: "pager" });
    await store.set(
      "tk:signed-in:session-1",
      { principal: carol, display: "carol@example.com", csrf: "c" },
      60_000,
    );
    const grant = { payload: { accountId: carol, clientId: "client-9" }, expiresAt: Date.now() + 60_000 };
    await store.set("tk:as:Grant:grant-hash", grant, 60_000);
    await store.set("tk:as:Session:session-hash", { payload: { accountId: carol } }, 60_000);
    await indexPeople(store, silentLogger);
    expect(await store.index(PEOPLE_INDEX).members()).toEqual(
      expect.arrayContaining([hash, hashKey("token:dora")]),
    );
    expect(await readPerson(store, hash)).toMatchObject({ principal: carol, display: "carol@example.com" });
    expect(await store.index(personSessions(hash)).members()).toEqual(["session-1"]);
    expect(await store.index(personGrants(hash)).members()).toEqual(["grant-hash"]);
    expect(await store.index(personAsSessions(hash)).members()).toEqual(["session-hash"]);
    // Once: a record written later is indexed by its writer, not by another walk.
    await store.set("tk:as:Grant:later", grant, 60_000);
    await indexPeople(store, silentLogger);
    expect(await store.index(personGrants(hash)).members()).toEqual(["grant-hash"]);
  });
});

describe("named tokens removed", () => {
  it("end their people's grants: found in the list on the first start that keeps the names, by the names after", async () => {
    const ended: string[] = [];
    const end = async (principal: string) => void ended.push(principal);
    await rememberSignIn(store, "token:zed", "zed");
    await endRemovedNames(store, ["bob"], end, silentLogger);
    expect(ended).toEqual(["token:zed"]);
    await endRemovedNames(store, ["bob", "yan"], end, silentLogger);
    expect(ended).toEqual(["token:zed"]);
    await endRemovedNames(store, ["yan"], end, silentLogger);
    expect(ended).toEqual(["token:zed", "token:bob"]);
  });
});
