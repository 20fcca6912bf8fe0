// Rolling upgrades: every record names its format. A replica meeting a record that a newer version
// wrote refuses it as unavailable (never misread, never rewritten), saying once in its log to
// upgrade; a record in an older format (format 1, written before formats were versioned) is read and
// written again in the current one, keeping its time to live, only if nobody changed it meanwhile.
// On Redis and on the file store. The records are made here from the documented layout
// (`v<format>.<key id>.<iv>.<ciphertext>.<tag>`, AES-256-GCM), not by the code under test.
import { createCipheriv, createHash, randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type Logger, silentLogger, ToolError } from "@toolkits/core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { OAuthClients } from "../../src/credentials/providers.js";
import { available } from "../../src/credentials/store.js";
import { teamGrants } from "../../src/credentials/team-grants.js";
import { openFileStore } from "../../src/team/store/file.js";
import { hashKey, openStore, StoreUnavailable, teamStore } from "../../src/team/store/index.js";
import type { KeyValueStore } from "../../src/team/store/kv.js";
import { redisStore } from "../../src/team/store/redis.js";
import { createSealer } from "../../src/team/store/sealed.js";
import { INSTALL_TIMEOUT_MS, type RedisServer, startRedis } from "./redis.js";
import { flushRedis, recordingLogger } from "./store-helpers.js";

const KEY = randomBytes(32).toString("base64");
const SECRET = `access-${randomBytes(12).toString("hex")}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The key's id as records name it: base64url(sha256(key)), 8 characters. */
const KID = createHash("sha256").update(Buffer.from(KEY, "base64")).digest("base64url").slice(0, 8);

/**
 * `value` sealed as a record of `format` under the key name `name`: format 1 (what the server wrote
 * before formats were versioned) binds the name alone, later formats `v<format>.<name>`.
 */
function sealedAs(format: number, name: string, value: unknown): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", Buffer.from(KEY, "base64"), iv);
  cipher.setAAD(Buffer.from(format === 1 ? name : `v${format}.${name}`, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(value), "utf8"), cipher.final()]);
  const parts = [iv, ciphertext, cipher.getAuthTag()].map((part) => part.toString("base64url"));
  return [`v${format}`, KID, ...parts].join(".");
}

let redis: RedisServer;
let dir: string;
beforeAll(async () => {
  redis = await startRedis();
}, INSTALL_TIMEOUT_MS);
afterAll(() => redis?.stop());
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolkits-store-upgrade-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const storeFile = () => join(dir, "store.json");
const backends = [
  {
    name: "file",
    url: () => pathToFileURL(storeFile()).href,
    raw: () => openFileStore(storeFile(), silentLogger),
  },
  { name: "redis", url: () => redis.url, raw: () => redisStore(redis.url, silentLogger) },
];

describe.each(backends)("records of other formats over $name", (backend) => {
  const opened: { close(): Promise<void> }[] = [];
  const open = async (logger: Logger = silentLogger) => {
    const store = await openStore({ url: backend.url(), key: KEY }, logger);
    opened.push(store);
    return store;
  };
  /** Runs `use` on the raw store under the same data (the file store's file has one owner at a time). */
  const raw = async <T>(use: (kv: KeyValueStore) => Promise<T>): Promise<T> => {
    const kv = await backend.raw();
    try {
      return await use(kv);
    } finally {
      await kv.close();
    }
  };

  beforeEach(async () => {
    if (backend.name === "redis") await flushRedis(redis.url);
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });

  it("refuses a record a newer version wrote as unavailable, logs once to upgrade, and leaves it as it is", async () => {
    const grant = `tk:conn:${hashKey("token:alice")}:marketing`;
    const newer = {
      [grant]: sealedAs(3, grant, { provider: "marketing", apiKey: SECRET }),
      "tk:session:s": sealedAs(3, "tk:session:s", { principal: "token:alice" }),
      "tk:code:c": sealedAs(3, "tk:code:c", { principal: "token:bob" }),
      [`tk:kit:sheets:${hashKey("s")}`]: sealedAs(3, `tk:kit:sheets:${hashKey("s")}`, { step: 2 }),
    };
    await raw(async (kv) => {
      for (const [name, record] of Object.entries(newer)) await kv.set(name, record, 60_000);
    });

    const logger = recordingLogger();
    const store = await open(logger);
    const refusal = (read: Promise<unknown>) =>
      read.then(
        (value) => expect.fail(`read ${JSON.stringify(value)}`),
        (error: unknown) => error,
      );
    const errors = [
      await refusal(store.get(grant)),
      await refusal(store.get("tk:session:s")),
      await refusal(store.get(grant)),
      await refusal(store.state("sheets").get("s")),
    ];
    for (const error of errors) expect(error).toBeInstanceOf(StoreUnavailable);
    expect((errors[0] as Error).message).toBe(
      "The credential store holds a record in format 3, which a newer version of this server wrote; this replica reads formats up to 2 until it is upgraded.",
    );
    // A tool needing the record answers `unavailable`, which its client may retry.
    const call = await refusal(
      available(() => teamGrants(store, {} as OAuthClients)("token:alice").get("marketing")),
    );
    expect(call).toBeInstanceOf(ToolError);
    expect(call).toMatchObject({ kind: "unavailable", retryable: true });
    expect((call as Error).message).toMatch(/newer version of this server wrote.* Retry in a few seconds\.$/);

    // One line for every record of that format, saying what to do; no value in it.
    expect(logger.lines).toEqual([
      {
        level: "warn",
        message:
          "A credential store record is in format 3, newer than this server reads (up to 2): a replica of a newer version wrote it. Upgrade this replica; until then, calls that need such records answer unavailable.",
        fields: { format: 3, reads_up_to: 2 },
      },
    ]);
    expect(JSON.stringify([logger.lines, errors.map(String), String(call)])).not.toContain(SECRET);

    // Nothing was rewritten in the older format; the store works for everything else.
    expect(await store.has(grant)).toBe(true);
    await store.set("tk:conn:other", { accessToken: "fine" });
    expect(await store.get("tk:conn:other")).toEqual({ accessToken: "fine" });
    // A single-use code of the newer format is refused too (taking it spent it).
    expect(await refusal(store.take("tk:code:c"))).toBeInstanceOf(StoreUnavailable);
    await store.close();
    await raw(async (kv) => {
      expect(await kv.get(grant)).toBe(newer[grant]);
      expect(await kv.get("tk:session:s")).toBe(newer["tk:session:s"]);
    });
  });

  it("reads a record of format 1 (before formats) and writes it again in format 2, keeping its time to live", async () => {
    let sealedAt = 0;
    await raw(async (kv) => {
      await kv.set("tk:conn:a", sealedAs(1, "tk:conn:a", { accessToken: SECRET }));
      sealedAt = Date.now();
      await kv.set("tk:session:b", sealedAs(1, "tk:session:b", { principal: "token:alice" }), 1_000);
      await kv.set("tk:code:c", sealedAs(1, "tk:code:c", { principal: "token:bob" }), 60_000);
    });
    const logger = recordingLogger();
    let store = await open(logger);
    expect(await store.get("tk:conn:a")).toEqual({ accessToken: SECRET });
    expect(await store.get("tk:session:b")).toEqual({ principal: "token:alice" });
    expect(await store.take("tk:code:c")).toEqual({ principal: "token:bob" });
    expect(logger.lines).toEqual([]);
    await store.close();

    const rewritten = await raw(async (kv) => [await kv.get("tk:conn:a"), await kv.get("tk:session:b")]);
    for (const record of rewritten)
      expect(record).toMatch(new RegExp(`^v2\\.${KID}\\.[\\w-]{16}\\.[\\w-]+\\.[\\w-]{22}$`));

    // Read again in its new format, and not rewritten any more.
    store = await open();
    expect(await store.get("tk:conn:a")).toEqual({ accessToken: SECRET });
    expect(await store.get("tk:session:b")).toEqual({ principal: "token:alice" });
    await store.close();
    expect(await raw(async (kv) => kv.get("tk:conn:a"))).toBe(rewritten[0]);

    // Written again, the session kept the second it had to live.
    store = await open();
    await sleep(sealedAt + 1_100 - Date.now());
    expect(await store.get("tk:session:b")).toBeUndefined();
    expect(await store.get("tk:conn:a")).toEqual({ accessToken: SECRET });
  });

  it("writes an older record again only if nobody changed it meanwhile", async () => {
    const meanwhile = sealedAs(2, "tk:conn:raced", { accessToken: "refreshed" });
    await raw(async (kv) => {
      await kv.set("tk:conn:raced", sealedAs(1, "tk:conn:raced", { accessToken: "old" }));
      await kv.set("tk:conn:calm", sealedAs(1, "tk:conn:calm", { accessToken: "calm" }));
      // Another replica writes `tk:conn:raced` between this one's read and its rewrite.
      const racing = new Proxy(kv, {
        get(target, property) {
          if (property === "get")
            return async (key: string) => {
              const value = await target.get(key);
              if (key === "tk:conn:raced") await target.set(key, meanwhile);
              return value;
            };
          const member = Reflect.get(target, property);
          return typeof member === "function" ? member.bind(target) : member;
        },
      });
      const store = teamStore(racing, createSealer(KEY, undefined, silentLogger));
      expect(await store.get("tk:conn:raced")).toEqual({ accessToken: "old" });
      expect(await store.get("tk:conn:calm")).toEqual({ accessToken: "calm" });
      expect(await kv.get("tk:conn:raced")).toBe(meanwhile);
      expect(await kv.get("tk:conn:calm")).toMatch(/^v2\./);
    });
  });

  it("authenticates the format: a record relabelled with an older one does not open", async () => {
    const store = await open();
    await store.set("tk:conn:a", { accessToken: SECRET });
    await store.close();
    await raw(async (kv) => {
      const record = (await kv.get("tk:conn:a")) ?? "";
      expect(record).toMatch(/^v2\./);
      await kv.set("tk:conn:a", record.replace(/^v2\./, "v1."));
    });
    const logger = recordingLogger();
    expect(await (await open(logger)).get("tk:conn:a")).toBeUndefined();
    expect(logger.lines).toEqual([
      { level: "warn", message: expect.stringContaining("does not open"), fields: { key: "tk:conn:a" } },
    ]);
  });
});

describe("the store file's own version", () => {
  it("refuses a file a newer version wrote as unavailable, saying to upgrade and keep the file", async () => {
    const text = `${JSON.stringify({ version: 2, entries: {}, more: [] })}\n`;
    await writeFile(storeFile(), text);
    const logger = recordingLogger();
    const store = await openStore({ url: pathToFileURL(storeFile()).href, key: KEY }, logger);
    const error = await store.get("tk:conn:a").catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(StoreUnavailable);
    expect((error as Error).message).toBe(
      "The credential store is unreachable (its file was written by a newer version of the server).",
    );
    await expect(store.ready()).rejects.toBeInstanceOf(StoreUnavailable);
    expect(logger.lines).toEqual([
      {
        level: "warn",
        message: `The store file ${storeFile()} is in version 2, which a newer version of toolkits-mcp wrote: upgrade this server, and keep the file.`,
        fields: { store: storeFile() },
      },
    ]);
    await store.close();
    expect(await readFile(storeFile(), "utf8")).toBe(text);
  });
});
