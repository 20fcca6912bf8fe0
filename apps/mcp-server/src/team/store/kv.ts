/**
 * The raw key-value store under the credential store: strings in, strings out, with expiry. Two
 * backends implement it: a file for one process (`file.ts`) and Redis for any number of replicas
 * (`redis.ts`). Values arrive already sealed (`sealed.ts`); key names never hold a credential, a
 * code or a person's identity in the clear (callers hash those).
 * Every method ends within a deadline, and rejects with StoreUnavailable when the backend cannot be
 * reached or does not answer in time.
 */
export interface KeyValueStore {
  /** The value under `key`; `undefined` when absent or expired. */
  get(key: string): Promise<string | undefined>;
  /** Stores `value`, replacing any; it expires after `ttlMs` milliseconds when given. */
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  /** Stores `value` only when `key` is absent; resolves to whether it did (locks, claims). */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  /** Reads and removes `key` in one step, so a single-use code is consumed by one request only. */
  take(key: string): Promise<string | undefined>;
  /** Removes `key`; resolves to whether it existed. */
  delete(key: string): Promise<boolean>;
  /** Removes `key` only while it still holds `value` (a lock's owner releasing it). */
  deleteIf(key: string, value: string): Promise<boolean>;
  /**
   * Replaces the value under `key` with `value` only while it still holds `expected`, keeping its
   * expiry; resolves to whether it did. Re-sealing a record under a new key uses it, so a value
   * written meanwhile (a refreshed token) is never overwritten by the older one.
   */
  replaceIf(key: string, expected: string, value: string): Promise<boolean>;
  /** Whether `key` holds a live value: nothing is read or opened (a cheap check on every request). */
  has(key: string): Promise<boolean>;
  /**
   * Adds `member` to the index `key`, live until `expiresAt` (epoch milliseconds), moving its expiry
   * when it is there already; members past their expiry drop out. The index itself expires with its
   * last member. An index holds names (hashes), never a secret or a person: it is not sealed.
   */
  indexAdd(key: string, member: string, expiresAt: number): Promise<void>;
  /** Removes `member` from the index `key`. */
  indexRemove(key: string, member: string): Promise<void>;
  /** The live members of the index `key`, in no order. */
  indexMembers(key: string): Promise<string[]>;
  /** How many live members the index `key` has, without reading them. */
  indexCount(key: string): Promise<number>;
  /** Every live key starting with `prefix`: a walk of the whole store, for tests and one-time migrations. */
  keys(prefix: string): Promise<string[]>;
  /**
   * Every live record whose key starts with `prefix`, as stored: values as they are (sealed ones
   * stay sealed) with their expiry, indexes with their members' expiries. A walk of the whole store,
   * for backups (`toolkits-mcp admin export`).
   */
  dump(prefix: string): Promise<StoredRecord[]>;
  /**
   * Writes records as `dump` gave them, each replacing any record of its key; one already expired
   * is skipped (for `toolkits-mcp admin import`).
   */
  restore(records: readonly StoredRecord[]): Promise<void>;
  /** A limiter whose counters live in this store, shared by every process using it. */
  rateLimiter(options: RateLimiterOptions): RateLimiter;
  /**
   * Resolves when the backend can serve right now, checked within `timeoutMs` milliseconds
   * (Redis answers PING; the file reads as a store, its changes are written and this process
   * holds its lock); rejects with StoreUnavailable saying why otherwise.
   */
  ready(timeoutMs: number): Promise<void>;
  /** Closes connections and flushes, within a deadline; the store is unusable afterwards. */
  close(): Promise<void>;
}

/** One record as a backend keeps it, for backups: a value, or an index of members. */
export type StoredRecord =
  | {
      key: string;
      value: string;
      /** Epoch milliseconds; absent for a value that never expires. */
      expiresAt?: number;
    }
  | {
      key: string;
      /** Each member's expiry, epoch milliseconds. */
      members: Record<string, number>;
    };

/** A fixed-window budget: `points` requests per `durationS` seconds, per key. */
export interface RateLimiterOptions {
  /** Where the limiter's counters live, named like every key (`tk:limit:pager`). */
  keyPrefix: string;
  points: number;
  durationS: number;
}

/** Consumes budget for a key (a person and an upstream). */
export interface RateLimiter {
  /**
   * Takes one point for `key`. Resolves to 0 when allowed, else to the milliseconds until the
   * window resets and the budget allows it again (a refused call does not delay that reset).
   */
  consume(key: string): Promise<number>;
}

/** The store's backend is out of reach (Redis restarting, say); the caller may retry shortly. */
export class StoreUnavailable extends Error {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(`The credential store is unreachable (${reason}).`, options);
    this.name = "StoreUnavailable";
  }
}
