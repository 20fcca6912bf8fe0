import { randomBytes } from "node:crypto";
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type Logger, silentLogger } from "@toolkits/core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openFileStore } from "../../src/team/store/file.js";
import {
  defaultStorePath,
  hashKey,
  openStore,
  StoreUnavailable,
  type TeamStore,
} from "../../src/team/store/index.js";
import type { KeyValueStore } from "../../src/team/store/kv.js";
import { redisStore } from "../../src/team/store/redis.js";
import { keyId, parseKey } from "../../src/team/store/sealed.js";
import { INSTALL_TIMEOUT_MS, type RedisServer, startRedis } from "./redis.js";
import { flushRedis, recordingLogger } from "./store-helpers.js";

const newKey = () => randomBytes(32).toString("base64");
const KEY = newKey();
const SECRET = `access-${randomBytes(12).toString("hex")}`;
const REFRESH = `refresh-${randomBytes(12).toString("hex")}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let redis: RedisServer;
let dir: string;

beforeAll(async () => {
  redis = await startRedis();
}, INSTALL_TIMEOUT_MS);
afterAll(() => redis?.stop());
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolkits-team-store-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** One backend under the same behaviour suite. */
interface Backend {
  name: string;
  url(): string;
  /** The raw store under the same data (a file store only while no other store has the file open). */
  raw(): Promise<KeyValueStore>;
  /** Every byte the backend keeps, as text, to search for plaintext. */
  bytes(): Promise<string>;
  /** Whether two stores may share it at once (replicas). */
  replicas: boolean;
}

const storeFile = () => join(dir, "state", "toolkits-mcp", "store.json");

const backends: Backend[] = [
  {
    name: "file",
    url: () => pathToFileURL(storeFile()).href,
    raw: () => openFileStore(storeFile(), silentLogger),
    bytes: () => readFile(storeFile(), "latin1"),
    replicas: false,
  },
  {
    name: "redis",
    url: () => redis.url,
    raw: () => redisStore(redis.url, silentLogger),
    bytes: () => redis.dump(),
    replicas: true,
  },
];

describe.each(backends)("the team store over $name", (backend) => {
  const opened: TeamStore[] = [];
  const open = async (settings: { key?: string; previousKey?: string; logger?: Logger } = {}) => {
    const { key = KEY, previousKey, logger = silentLogger } = settings;
    const store = await openStore({ url: backend.url(), key, previousKey }, logger);
    opened.push(store);
    return store;
  };
  /** A second store on the same data: another replica on Redis, the same store on a file (one process owns it). */
  const replica = async (store: TeamStore) => (backend.replicas ? open() : store);

  beforeEach(async () => {
    if (backend.name === "redis") await flushRedis(redis.url);
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });

  it("round-trips JSON values, and expires them after their time to live", async () => {
    const store = await open();
    await store.set("tk:test:a", { token: SECRET, n: 1, list: [true, null] });
    expect(await store.get("tk:test:a")).toEqual({ token: SECRET, n: 1, list: [true, null] });
    await store.set("tk:test:short", "brief", 100);
    expect(await store.get("tk:test:short")).toBe("brief");
    await sleep(250);
    expect(await store.get("tk:test:short")).toBeUndefined();
    expect(await store.keys("tk:test:")).toEqual(["tk:test:a"]);
    expect(await store.delete("tk:test:a")).toBe(true);
    expect(await store.delete("tk:test:a")).toBe(false);
    expect(await store.get("tk:test:a")).toBeUndefined();
    await expect(store.set("tk:test:b", undefined)).rejects.toThrow(TypeError);
  });

  it("hands a taken value to exactly one of 20 concurrent takers", async () => {
    const store = await open();
    const other = await replica(store);
    await store.set("tk:code:c", { principal: "token:alice" }, 60_000);
    const taken = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? other : store).take("tk:code:c")),
    );
    expect(taken.filter((value) => value !== undefined)).toEqual([{ principal: "token:alice" }]);
    expect(await store.get("tk:code:c")).toBeUndefined();
  });

  it("gives a lock to one of 20 concurrent callers, and takes it back from its owner only", async () => {
    const store = await open();
    const other = await replica(store);
    const releases = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? other : store).tryLock("tk:lock:refresh", 10_000)),
    );
    const held = releases.filter((release) => release !== undefined);
    expect(held).toHaveLength(1);
    expect(await store.tryLock("tk:lock:refresh", 10_000)).toBeUndefined();
    await held[0]?.();
    const again = await other.tryLock("tk:lock:refresh", 10_000);
    expect(again).toBeTypeOf("function");
    await again?.();

    // A holder whose lock expired and passed to another releases nothing of theirs.
    const stale = await store.tryLock("tk:lock:short", 100);
    await sleep(250);
    const next = await other.tryLock("tk:lock:short", 10_000);
    expect(next).toBeTypeOf("function");
    await stale?.();
    expect(await store.tryLock("tk:lock:short", 10_000)).toBeUndefined();
    await next?.();
    expect(await store.keys("tk:lock:")).toEqual([]);
  });

  it("lists the live keys under a prefix, taking glob characters literally", async () => {
    const store = await open();
    for (const key of ["tk:a*:1", "tk:a*:2", "tk:ab:3", "tk:a?:4", "tk:[a]:5", "tk:a\\:6", "other:a*:7"])
      await store.set(key, key);
    await store.set("tk:a*:gone", "soon", 50);
    await sleep(150);
    expect((await store.keys("tk:a*:")).sort()).toEqual(["tk:a*:1", "tk:a*:2"]);
    expect(await store.keys("tk:a?:")).toEqual(["tk:a?:4"]);
    expect(await store.keys("tk:[a]:")).toEqual(["tk:[a]:5"]);
    expect(await store.keys("tk:a\\:")).toEqual(["tk:a\\:6"]);
    expect((await store.keys("tk:")).sort()).toEqual([
      "tk:[a]:5",
      "tk:a*:1",
      "tk:a*:2",
      "tk:a?:4",
      "tk:a\\:6",
      "tk:ab:3",
    ]);
    expect(await store.keys("nothing:")).toEqual([]);
  });

  it("tells whether a record lives without opening it: expired and absent ones do not", async () => {
    const store = await open();
    await store.set("tk:grant:live", { at: 1 });
    await store.set("tk:grant:brief", { at: 2 }, 100);
    expect(await store.has("tk:grant:live")).toBe(true);
    expect(await store.has("tk:grant:brief")).toBe(true);
    expect(await store.has("tk:grant:none")).toBe(false);
    await sleep(250);
    expect(await store.has("tk:grant:brief")).toBe(false);
  });

  it("keeps indexes whose members expire one by one, shared by every replica, counted without reading them", async () => {
    const store = await open();
    const other = await replica(store);
    const index = store.index("tk:ix:clients");
    await index.add("a", 60_000);
    await index.add("b", 60_000);
    await other.index("tk:ix:clients").add("brief", 100);
    expect(await other.index("tk:ix:clients").count()).toBe(3);
    await sleep(250);
    expect(await index.count()).toBe(2);
    expect((await other.index("tk:ix:clients").members()).sort()).toEqual(["a", "b"]);
    // Adding again moves the expiry: a member in use outlives its first time to live.
    await index.add("a", 100);
    await index.remove("b");
    expect(await index.members()).toEqual(["a"]);
    await sleep(250);
    expect(await index.count()).toBe(0);
    expect(await store.index("tk:ix:none").members()).toEqual([]);
    // The index went with its last member: nothing is left behind in the store.
    expect(await store.keys("tk:ix:")).toEqual([]);
  });

  it("serves core's StateStore under tk:kit:<prefix>, with hashed key names", async () => {
    const store = await open();
    const state = store.state("sheets");
    const sessionId = `picker-${randomBytes(8).toString("hex")}`;
    await state.set(sessionId, { step: 2, token: SECRET }, 60_000);
    expect(await (await replica(store)).state("sheets").get(sessionId)).toEqual({ step: 2, token: SECRET });
    expect(await store.state("pager").get(sessionId)).toBeUndefined();
    expect(await store.keys("tk:kit:sheets:")).toEqual([`tk:kit:sheets:${hashKey(sessionId)}`]);
    expect(await state.delete(sessionId)).toBe(true);
    expect(await state.delete(sessionId)).toBe(false);
    expect(await state.get(sessionId)).toBeUndefined();
    await state.set("brief", 1, 50);
    await sleep(150);
    expect(await state.get("brief")).toBeUndefined();
  });

  it("counts rate limits in the store, shared by every replica, and says when to retry", async () => {
    const store = await open();
    const other = await replica(store);
    const options = { keyPrefix: "tk:limit:pager", points: 3, durationS: 60 };
    const first = store.rateLimiter(options);
    const second = other.rateLimiter(options);
    expect([await first.consume("token:alice"), await second.consume("token:alice")]).toEqual([0, 0]);
    expect(await first.consume("token:alice")).toBe(0);
    for (const limiter of [first, second]) {
      const wait = await limiter.consume("token:alice");
      expect(wait).toBeGreaterThan(55_000);
      expect(wait).toBeLessThanOrEqual(60_000);
    }
    expect(await second.consume("token:bob")).toBe(0);
    const perSecond = store.rateLimiter({ keyPrefix: "tk:limit:marketing", points: 1, durationS: 1 });
    expect(await perSecond.consume("token:alice")).toBe(0);
    expect(await perSecond.consume("token:alice")).toBeGreaterThan(0);
    if (backend.name === "redis") {
      const dump = await redis.dump();
      expect(dump).toContain(`tk:limit:pager:${hashKey("token:alice")}`);
      expect(dump).not.toContain("alice");
    }
  });

  it("seals every value: no plaintext secret in what the backend keeps", async () => {
    const store = await open();
    const name = `tk:conn:${hashKey("token:alice")}:pager`;
    await store.set(name, {
      provider: "pager",
      accessToken: SECRET,
      refreshToken: REFRESH,
      account: "alice",
    });
    await store.set(`tk:code:${hashKey("code")}`, { principal: "token:alice" }, 60_000);
    await store.state("sheets").set("session", { token: SECRET }, 60_000);
    await store.close();
    const bytes = await backend.bytes();
    for (const secret of [SECRET, REFRESH, "alice"]) {
      expect(bytes).not.toContain(secret);
      // Not even a fragment: the ciphertext is not the plaintext in another alphabet either.
      for (const encoding of ["base64", "base64url", "hex"] as const)
        expect(bytes).not.toContain(Buffer.from(secret.slice(0, 12)).toString(encoding));
    }
    const kv = await backend.raw();
    const record = await kv.get(name);
    await kv.close();
    expect(record).toMatch(
      new RegExp(`^v2\\.${keyId(parseKey(KEY, "MCP_STORE_KEY"))}\\.[\\w-]{16}\\.[\\w-]+\\.[\\w-]{22}$`),
    );
  });

  it("does not open a record copied under another key name", async () => {
    const logger = recordingLogger();
    let store = await open({ logger });
    await store.set("tk:conn:alice:pager", { accessToken: SECRET });
    await store.set("tk:conn:bob:pager", { accessToken: REFRESH });
    await store.close();
    const kv = await backend.raw();
    const alices = await kv.get("tk:conn:alice:pager");
    await kv.set("tk:conn:bob:pager", alices ?? "");
    await kv.close();
    store = await open({ logger });
    expect(await store.get("tk:conn:bob:pager")).toBeUndefined();
    expect(await store.take("tk:conn:bob:pager")).toBeUndefined();
    expect(await store.get("tk:conn:alice:pager")).toEqual({ accessToken: SECRET });
    expect(logger.lines.filter((line) => line.level === "warn")).toHaveLength(1);
    expect(JSON.stringify(logger.lines)).not.toContain(SECRET);
  });

  it("rotates keys: the previous key still opens records, which are sealed again under the new one", async () => {
    const newer = newKey();
    const older = await open();
    const sealedAt = Date.now();
    await store3Records(older);
    await older.close();

    const rotating = await open({ key: newer, previousKey: KEY });
    expect(await rotating.get("tk:conn:a")).toEqual({ accessToken: SECRET });
    expect(await rotating.get("tk:session:b")).toEqual({ principal: "token:alice" });
    expect(await rotating.take("tk:code:c")).toEqual({ principal: "token:bob" });
    await rotating.close();

    const kv = await backend.raw();
    const kid = keyId(parseKey(newer, "MCP_STORE_KEY"));
    expect(await kv.get("tk:conn:a")).toMatch(new RegExp(`^v2\\.${kid}\\.`));
    expect(await kv.get("tk:session:b")).toMatch(new RegExp(`^v2\\.${kid}\\.`));
    await kv.close();

    const rotated = await open({ key: newer });
    expect(await rotated.get("tk:conn:a")).toEqual({ accessToken: SECRET });
    // Sealed again, the record kept its time to live.
    expect(await rotated.get("tk:session:b")).toEqual({ principal: "token:alice" });
    await sleep(sealedAt + 1_100 - Date.now());
    expect(await rotated.get("tk:session:b")).toBeUndefined();
    await rotated.close();

    // A server still on the old key cannot open them: undefined, and one warning naming the key id.
    const logger = recordingLogger();
    const behind = await open({ logger });
    expect(await behind.get("tk:conn:a")).toBeUndefined();
    await behind.set("tk:conn:x", 1);
    expect(await behind.get("tk:conn:x")).toBe(1);
    expect(await behind.get("tk:conn:a")).toBeUndefined();
    expect(logger.lines).toEqual([{ level: "warn", message: expect.any(String), fields: { key_id: kid } }]);
  });

  it("refuses keys that are not 32 bytes of base64, naming the setting but never the value", async () => {
    const short = randomBytes(16).toString("base64");
    const long = randomBytes(33).toString("base64");
    const refused = (settings: { key: string; previousKey?: string }) =>
      openStore({ url: backend.url(), ...settings }, silentLogger).then(
        () => expect.fail("opened"),
        (error: Error) => error.message,
      );
    const messages = [
      await refused({ key: short }),
      await refused({ key: "not base64 at all!" }),
      await refused({ key: "" }),
      await refused({ key: KEY, previousKey: long }),
    ];
    for (const message of messages.slice(0, 3)) expect(message).toMatch(/^MCP_STORE_KEY must be 32/);
    expect(messages[3]).toMatch(/^MCP_STORE_KEY_PREVIOUS must be 32/);
    for (const message of messages) expect(message).toContain("openssl rand -base64 32");
    expect(messages.join(" ")).not.toContain(short);
    expect(messages.join(" ")).not.toContain(long);
  });

  /** One record without expiry, one expiring in a second, one single-use code. */
  async function store3Records(store: TeamStore) {
    await store.set("tk:conn:a", { accessToken: SECRET });
    await store.set("tk:session:b", { principal: "token:alice" }, 1_000);
    await store.set("tk:code:c", { principal: "token:bob" }, 60_000);
  }
});

describe("the file store", () => {
  it("writes one 0600 file, in directories it makes 0700, leaving an existing directory's mode alone", async () => {
    // A shared directory such as /tmp: sticky and writable by everyone.
    await mkdir(join(dir, "shared"));
    await chmod(join(dir, "shared"), 0o1777);
    const inShared = join(dir, "shared", "store.json");
    const store = await openFileStore(inShared, silentLogger);
    await store.set("k", "v");
    expect((await stat(inShared)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, "shared"))).mode & 0o7777).toBe(0o1777);
    await store.close();
    expect(await readdir(join(dir, "shared"))).toEqual(["store.json"]);

    const nested = join(dir, "made", "here", "store.json");
    const made = await openFileStore(nested, silentLogger);
    await made.set("k", "v");
    await made.close();
    expect((await stat(join(dir, "made"))).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir, "made", "here"))).mode & 0o777).toBe(0o700);
    expect((await stat(nested)).mode & 0o777).toBe(0o600);
  });

  it("keeps every one of many concurrent changes, written one file at a time", async () => {
    const path = join(dir, "store.json");
    const store = await openFileStore(path, silentLogger);
    await Promise.all(Array.from({ length: 50 }, (_, i) => store.set(`k${i}`, `v${i}`)));
    await Promise.all([store.delete("k0"), store.take("k1"), store.setIfAbsent("k2", "x", 1_000)]);
    await store.close();
    const reopened = await openFileStore(path, silentLogger);
    const keys = await reopened.keys("k");
    expect(keys).toHaveLength(48);
    expect(await reopened.get("k2")).toBe("v2");
    expect(await reopened.get("k49")).toBe("v49");
    await reopened.close();
    // No temporary file left behind, and the lock went with the store.
    expect(await readdir(dir)).toEqual(["store.json"]);
  });

  it("replaces a value only while it holds the expected one, keeping its expiry", async () => {
    const store = await openFileStore(join(dir, "store.json"), silentLogger);
    await store.set("k", "old", 150);
    expect(await store.replaceIf("k", "other", "new")).toBe(false);
    expect(await store.replaceIf("k", "old", "new")).toBe(true);
    expect(await store.get("k")).toBe("new");
    await sleep(250);
    expect(await store.get("k")).toBeUndefined();
    expect(await store.replaceIf("k", "new", "newer")).toBe(false);
    await store.close();
  });

  it("answers a corrupt file as unavailable naming no path, logs the path once, and reads it once it is fixed", async () => {
    const path = join(dir, "store.json");
    await writeFile(path, "{ not json", { mode: 0o600 });
    const logger = recordingLogger();
    const store = await openStore({ url: pathToFileURL(path).href, key: KEY }, logger);
    const refusal = await store.get("k").catch((error: Error) => error);
    expect(refusal).toBeInstanceOf(StoreUnavailable);
    expect((refusal as Error).message).toBe(
      "The credential store is unreachable (its file is not a valid store).",
    );
    await expect(store.ready()).rejects.toThrow(StoreUnavailable);
    await expect(store.set("k", 1)).rejects.toThrow(StoreUnavailable);
    expect(logger.lines).toEqual([
      {
        level: "warn",
        message: `The store file ${path} is not valid (not JSON). Move it aside to start with an empty store (everyone connects again).`,
        fields: { store: path },
      },
    ]);
    await writeFile(path, JSON.stringify({ version: 1, entries: { k: "bare" } }));
    await expect(store.get("k")).rejects.toThrow("(its file is not a valid store)");
    expect(logger.lines.at(-1)?.message).toMatch(/is not valid \(entries\.k: /);
    await writeFile(path, JSON.stringify({ version: 1, entries: {} }));
    await store.ready();
    await store.set("k", 1);
    expect(await store.get("k")).toBe(1);
    await store.close();
  });

  it("defaults to $XDG_STATE_HOME/toolkits-mcp/store.json, else ~/.local/state", () => {
    expect(defaultStorePath({ XDG_STATE_HOME: "/x/state" })).toBe("/x/state/toolkits-mcp/store.json");
    const fallback = join(homedir(), ".local", "state", "toolkits-mcp", "store.json");
    expect(defaultStorePath({ XDG_STATE_HOME: "relative" })).toBe(fallback);
    expect(defaultStorePath({})).toBe(fallback);
  });
});

describe("the Redis store", () => {
  it("rejects with StoreUnavailable while Redis is down, and works again once it is back", async () => {
    const own = await startRedis();
    const logger = recordingLogger();
    const store = await openStore({ url: own.url, key: KEY }, logger);
    try {
      await store.set("tk:conn:a", { accessToken: SECRET });
      const limiter = store.rateLimiter({ keyPrefix: "tk:limit:pager", points: 10, durationS: 60 });
      expect(await limiter.consume("token:alice")).toBe(0);
      await own.restart(async () => {
        const started = Date.now();
        const calls = await Promise.allSettled([
          store.get("tk:conn:a"),
          store.set("tk:conn:b", 1),
          store.take("tk:code:c"),
          store.delete("tk:conn:a"),
          store.keys("tk:"),
          store.tryLock("tk:lock:l", 1_000),
          store.state("sheets").get("s"),
          limiter.consume("token:alice"),
          store.ready(),
        ]);
        for (const call of calls)
          expect(call.status === "rejected" && call.reason).toBeInstanceOf(StoreUnavailable);
        // Fails fast: nothing waits for a reconnection.
        expect(Date.now() - started).toBeLessThan(1_000);
      });
      // No persistence: Redis came back empty, and the same store works without reopening.
      await expect
        .poll(() => store.set("tk:conn:b", 2).then(() => "ok", String), { timeout: 10_000 })
        .toBe("ok");
      expect(await store.get("tk:conn:b")).toBe(2);
      expect(await limiter.consume("token:alice")).toBe(0);
      await store.ready();
      expect(logger.lines.map(({ level }) => level)).toEqual(["warn", "info"]);
      expect(logger.lines[0]?.fields).toEqual({
        store: own.url,
        reason: "Error: Socket closed unexpectedly",
      });
      expect(JSON.stringify(logger.lines)).not.toContain(SECRET);
    } finally {
      await store.close();
      await own.stop();
    }
  });

  it("gives up opening when nothing answers, with StoreUnavailable", async () => {
    const own = await startRedis();
    await own.stop();
    const started = Date.now();
    await expect(redisStore(own.url, silentLogger, { connectTimeoutMs: 500 })).rejects.toThrow(
      /^The credential store is unreachable \(no connection to redis:\/\/127\.0\.0\.1:\d+ within 500 ms: ECONNREFUSED\)/,
    );
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});

describe("openStore", () => {
  it("refuses a URL it cannot serve, echoing only its scheme", async () => {
    for (const url of [
      "http://user:hunter2@example.com/",
      "file:relative.json",
      "file://host/abs.json",
      "junk",
    ])
      await expect(openStore({ url, key: KEY }, silentLogger)).rejects.toThrow(
        /^MCP_STORE_URL must be redis:\/\/host:port, rediss:\/\/host:port or file:\/\/\/absolute\/path\.json \(got (`[a-z]+:`|no scheme)\)\.$/,
      );
  });

  it("refuses weak keys (all zeros, a repeated pattern, text) in either setting, saying how to make one", async () => {
    const weak = [
      Buffer.alloc(32),
      Buffer.alloc(32, "ab"),
      Buffer.from("passwordpasswordpasswordpassword"),
      Buffer.from(Array.from({ length: 32 }, (_, i) => i % 15)),
    ].map((bytes) => bytes.toString("base64"));
    for (const [index, key] of weak.entries()) {
      const variable = index % 2 ? "MCP_STORE_KEY_PREVIOUS" : "MCP_STORE_KEY";
      const settings = index % 2 ? { key: KEY, previousKey: key } : { key };
      const refusal = await openStore(
        { url: "file:///nonexistent/store.json", ...settings },
        silentLogger,
      ).then(
        () => expect.fail("opened"),
        (error: Error) => error.message,
      );
      expect(refusal).toMatch(
        new RegExp(
          `^${variable} must be 32 random bytes in base64 \\(it has only \\d+ different byte values?, so it was not made at random\\); make one with \`openssl rand -base64 32\`\\.$`,
        ),
      );
      expect(refusal).not.toContain(key);
    }
    // 16 different values among 32 bytes is already far from random, but allowed: the bar is low.
    const varied = Buffer.from(Array.from({ length: 32 }, (_, i) => (i * 7) % 16)).toString("base64");
    expect(() => parseKey(varied, "MCP_STORE_KEY")).not.toThrow();
    for (let i = 0; i < 1_000; i++) parseKey(newKey(), "MCP_STORE_KEY");
  });

  it("hashes key name parts into 32 base64url characters", () => {
    expect(hashKey("token:alice")).toMatch(/^[\w-]{32}$/);
    expect(hashKey("token:alice")).toBe(hashKey("token:alice"));
    expect(hashKey("token:alice")).not.toBe(hashKey("token:bob"));
  });
});
