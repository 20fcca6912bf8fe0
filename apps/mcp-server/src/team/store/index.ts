import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import type { Logger, StateStore } from "@toolkits/core";
import { telemetry } from "../../telemetry/index.js";
import { openFileStore } from "./file.js";
import { hashKey } from "./hash.js";
import type { KeyValueStore, RateLimiter, RateLimiterOptions, StoredRecord } from "./kv.js";
import { redisStore } from "./redis.js";
import { createSealer, type Sealer } from "./sealed.js";

export { hashKey } from "./hash.js";
export { type RateLimiter, type RateLimiterOptions, type StoredRecord, StoreUnavailable } from "./kv.js";
export { defaultStorePath } from "./location.js";

/** How long `TeamStore.ready` waits for the store, in milliseconds: below a readiness probe's own timeout. */
export const READY_TIMEOUT_MS = 2_000;

/**
 * The team deployment's store: JSON values sealed with AES-256-GCM under `MCP_STORE_KEY` (each
 * record tagged with its format and its key's id; records sealed under `MCP_STORE_KEY_PREVIOUS` or
 * in an older format still open and are sealed again, under the current key in the current format,
 * when read; a record in a newer format is refused with NewerRecordFormat, a StoreUnavailable), over
 * a file (one process) or Redis (any number of replicas). Every operation on the backend, locks included, ends within a deadline
 * (5 s), and rejects with StoreUnavailable when the backend is out of reach, does not answer in
 * time, or (a file) is not a valid store; its message names no file path and no password, as it
 * reaches the people calling.
 */
export interface TeamStore {
  /**
   * The value under `key`, opened; `undefined` when absent, expired, or sealed under an unknown key.
   * @throws NewerRecordFormat (a StoreUnavailable) when a newer version wrote it: left as it is.
   */
  get<T = unknown>(key: string): Promise<T | undefined>;
  /**
   * Seals and stores `value` (JSON); it expires after `ttlMs` milliseconds when given.
   * @throws TypeError when `value` has no JSON form (`undefined`, a function).
   */
  set(key: string, value: unknown, ttlMs?: number): Promise<void>;
  /**
   * Reads and removes `key` in one step (single-use codes): at most one caller gets the value.
   * @throws NewerRecordFormat when a newer version wrote it (the code is spent: its step starts again).
   */
  take<T = unknown>(key: string): Promise<T | undefined>;
  /** Removes `key`; resolves to whether it existed. */
  delete(key: string): Promise<boolean>;
  /** Whether `key` holds a live record, without opening it: cheap enough for every request. */
  has(key: string): Promise<boolean>;
  /** The index under `key`: names (hashes) of records, each live for its own time (see StoreIndex). */
  index(key: string): StoreIndex;
  /** Live keys starting with `prefix`: a walk of the whole store, for tests and one-time migrations only. */
  keys(prefix: string): Promise<string[]>;
  /**
   * The live records under `prefix` exactly as stored (values still sealed, with their expiry;
   * indexes with their members'): a walk of the whole store, for `admin export`.
   */
  dump(prefix: string): Promise<StoredRecord[]>;
  /** Writes records as `dump` gave them, replacing any of the same key; expired ones are skipped. */
  restore(records: readonly StoredRecord[]): Promise<void>;
  /**
   * Takes the lock `key` for at most `ttlMs` milliseconds, across every process on this store.
   * Resolves to its release, or `undefined` when another holder has it. Releasing is safe after
   * the lock expired: it never removes a later holder's lock.
   */
  tryLock(key: string, ttlMs: number): Promise<(() => Promise<void>) | undefined>;
  /**
   * A rate limiter counting in this store (shared by every replica). Its counters live under
   * `<keyPrefix>:`, named like every other key (`tk:limit:pager` counts under `tk:limit:pager:`),
   * each by the hash of the key given to `consume` (a principal may be passed as it is).
   */
  rateLimiter(options: RateLimiterOptions): RateLimiter;
  /**
   * Core's StateStore for toolkits (page sessions): its values sealed like any other, its keys
   * hashed (they may be session ids) under `tk:kit:<prefix>:`.
   */
  state(prefix: string): StateStore;
  /**
   * Resolves when the store can serve right now, checked within READY_TIMEOUT_MS (2 s): Redis
   * answers PING; the file reads as a valid store, its changes are written and this process holds
   * its lock. Rejects with StoreUnavailable saying why otherwise. For readiness probes (`/readyz`).
   */
  ready(): Promise<void>;
  /** Waits for pending writes (within the deadline), closes connections; the store is unusable then. */
  close(): Promise<void>;
}

/**
 * A set of names kept beside the records they name, so that what belongs to one person or client
 * is found without walking the store: each member lives until its own expiry and then drops out.
 * Members are hashes, never a secret or a person's id: an index is not sealed.
 */
export interface StoreIndex {
  /** Adds `member` (or moves its expiry) for `ttlMs` milliseconds from now. */
  add(member: string, ttlMs: number): Promise<void>;
  remove(member: string): Promise<void>;
  /** The live members, in no order. */
  members(): Promise<string[]>;
  /** How many members are live (O(log n) on Redis). */
  count(): Promise<number>;
}

/** How to open the store, from `MCP_STORE_URL`, `MCP_STORE_KEY` and `MCP_STORE_KEY_PREVIOUS`. */
export interface StoreSettings {
  /** `redis://…` / `rediss://…`, or `file:///abs/path.json`. */
  url: string;
  /** 32 bytes, base64: seals every record. */
  key: string;
  /** The key before the last rotation, base64: still opens records. */
  previousKey?: string;
}

/**
 * Ends what each member of the index `key` names (`end` resolves to whether there was anything to
 * end), then empties the index: O(its members), never a walk of the store. Resolves to how many
 * there were. @throws StoreUnavailable
 */
export async function endEach(
  store: TeamStore,
  key: string,
  end: (member: string) => Promise<boolean>,
): Promise<number> {
  const index = store.index(key);
  const members = await index.members();
  const ended = await Promise.all(members.map(end));
  await Promise.all(members.map((member) => index.remove(member)));
  return ended.filter(Boolean).length;
}

/** How long one replica may take a one-time walk, in milliseconds; the others start meanwhile. */
const ONCE_LOCK_MS = 5 * 60_000;

/**
 * Runs `walk` (a one-time migration walking the store) once for the store, by one replica: the first
 * to take the lock, unless the record `marker` says it already ran; it is written once `walk` ends.
 * Resolves when done, or left to another replica. @throws StoreUnavailable
 */
export async function once(store: TeamStore, marker: string, walk: () => Promise<void>): Promise<void> {
  if (await store.has(marker)) return;
  const release = await store.tryLock(`${marker}:lock`, ONCE_LOCK_MS);
  if (!release) return;
  try {
    await walk();
    await store.set(marker, { at: Date.now() });
  } finally {
    await release().catch(() => {});
  }
}

/**
 * Opens the store `settings` describe: the file at `file:///abs/path.json`, or Redis at
 * `redis://…` / `rediss://…`.
 * @throws Error naming MCP_STORE_KEY or MCP_STORE_KEY_PREVIOUS when a key is not 32 bytes of
 *   base64 or is weak (see `parseKey`); Error naming MCP_STORE_URL when the URL is neither;
 *   StoreUnavailable when Redis does not answer within 10 seconds; FileLocked when another
 *   process has the store file; the file system's error when the file's directory cannot be made.
 */
export async function openStore(settings: StoreSettings, logger: Logger): Promise<TeamStore> {
  // The keys first: a bad one is refused before anything connects.
  const sealer = createSealer(settings.key, settings.previousKey, logger);
  const backend = await openBackend(settings.url, logger);
  // With telemetry on, every operation on the backend is recorded (spans within a call, a duration).
  const recorded = telemetry()?.store(backend, /^rediss?:/i.test(settings.url) ? "redis" : "file");
  return teamStore(recorded ?? backend, sealer);
}

async function openBackend(url: string, logger: Logger): Promise<KeyValueStore> {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  if (scheme === "redis" || scheme === "rediss") return redisStore(url, logger);
  // Only the `file:///` form: URL parsing would read `file:store.json` as `/store.json`.
  if (scheme === "file" && /^file:\/\/\//i.test(url)) return openFileStore(fileURLToPath(url), logger);
  // Only the scheme is echoed: the rest may hold a password.
  const given = scheme ? `\`${scheme}:\`` : "no scheme";
  throw new Error(
    `MCP_STORE_URL must be redis://host:port, rediss://host:port or file:///absolute/path.json (got ${given}).`,
  );
}

/** A TeamStore over a raw store: JSON values sealed under their key names. */
export function teamStore(kv: KeyValueStore, sealer: Sealer): TeamStore {
  /**
   * Opens a record; one sealed under the previous key or in an older format is sealed again, under
   * the current key in the current format. @throws NewerRecordFormat for a newer format.
   */
  const open = async <T>(
    key: string,
    record: string | undefined,
    reseal: boolean,
  ): Promise<T | undefined> => {
    if (record === undefined) return undefined;
    const opened = sealer.open(key, record);
    if (!opened) return undefined;
    // Only if nobody changed it meanwhile, and keeping its time to live. A failure here costs
    // nothing but another try on the next read, so the value is answered anyway.
    if (opened.stale && reseal)
      await kv.replaceIf(key, record, sealer.seal(key, opened.plaintext)).catch(() => false);
    return JSON.parse(opened.plaintext) as T;
  };
  const seal = (key: string, value: unknown): string => {
    const json = JSON.stringify(value);
    if (json === undefined) throw new TypeError(`Cannot store ${typeof value} under ${key}: not JSON.`);
    return sealer.seal(key, json);
  };
  const store: TeamStore = {
    get: async (key) => open(key, await kv.get(key), true),
    set: async (key, value, ttlMs) => kv.set(key, seal(key, value), ttlMs),
    take: async (key) => open(key, await kv.take(key), false),
    delete: (key) => kv.delete(key),
    has: (key) => kv.has(key),
    index: (key) => ({
      add: (member, ttlMs) => kv.indexAdd(key, member, Date.now() + ttlMs),
      remove: (member) => kv.indexRemove(key, member),
      members: () => kv.indexMembers(key),
      count: () => kv.indexCount(key),
    }),
    keys: (prefix) => kv.keys(prefix),
    dump: (prefix) => kv.dump(prefix),
    restore: (records) => kv.restore(records),
    async tryLock(key, ttlMs) {
      // The owner's token makes the release conditional: a holder whose lock expired and passed
      // to someone else cannot release theirs.
      const owner = randomBytes(16).toString("base64url");
      if (!(await kv.setIfAbsent(key, owner, ttlMs))) return undefined;
      let released: Promise<void> | undefined;
      return () => {
        released ??= kv.deleteIf(key, owner).then(() => {});
        return released;
      };
    },
    rateLimiter(options) {
      const limiter = kv.rateLimiter(options);
      return { consume: (key) => limiter.consume(hashKey(key)) };
    },
    state(prefix) {
      // A toolkit's keys may be session ids: hashed like every other secret in a key name.
      const name = (key: string) => `tk:kit:${prefix}:${hashKey(key)}`;
      return {
        get: (key) => store.get(name(key)),
        set: (key, value, ttlMs) => store.set(name(key), value, ttlMs),
        delete: (key) => store.delete(name(key)),
      };
    },
    ready: () => kv.ready(READY_TIMEOUT_MS),
    close: () => kv.close(),
  };
  return store;
}
