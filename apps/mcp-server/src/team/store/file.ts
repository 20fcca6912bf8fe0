import { readFile } from "node:fs/promises";
import { RateLimiterMemory } from "rate-limiter-flexible";
import { z } from "zod";
import { writePrivateFile } from "../../files.js";
import { type KeyValueStore, type RateLimiter, type RateLimiterOptions, StoreUnavailable } from "./kv.js";
import { wrapLimiter } from "./limiter.js";

/** The file: `{ "version": 1, "entries": { "<key>": { "value": "…", "expiresAt": <epoch ms>? } } }`. */
const fileSchema = z.object({
  version: z.literal(1),
  entries: z.record(z.string(), z.object({ value: z.string(), expiresAt: z.number().optional() })),
});

interface Entry {
  value: string;
  /** Epoch milliseconds; absent for a value that never expires. */
  expiresAt?: number;
}

/**
 * A KeyValueStore in one JSON file, for a single process (which owns the file: it is read once, on
 * first use, and then kept in memory). Every change is written before its promise resolves: the
 * whole file is replaced atomically (a temporary file in the same directory, fsync, rename), mode
 * 0600 in a 0700 directory, and changes made while a write is under way share the next one.
 * Expired entries read as absent and are dropped from the next write. Rate limits count in this
 * process's memory (one process owns the file, so that is every process there is).
 * Methods reject with an Error naming the file when it is not a valid store, and with
 * StoreUnavailable when it cannot be written.
 */
export function fileStore(path: string, now: () => number = Date.now): KeyValueStore {
  return new FileStore(path, now);
}

class FileStore implements KeyValueStore {
  #entries: Promise<Map<string, Entry>> | undefined;
  /** The write not yet started, which the changes made now will ride on. */
  #pending: Promise<void> | undefined;
  /** The tail of the write queue: writes run one at a time, in order. */
  #writes: Promise<void> = Promise.resolve();
  #closed = false;
  #limiters = new Map<string, RateLimiter>();

  constructor(
    readonly path: string,
    readonly now: () => number,
  ) {}

  async get(key: string): Promise<string | undefined> {
    return this.#live(await this.#load(), key)?.value;
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    const entries = await this.#load();
    entries.set(key, this.#entry(value, ttlMs));
    await this.#flush(entries);
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    const entries = await this.#load();
    if (this.#live(entries, key)) return false;
    entries.set(key, this.#entry(value, ttlMs));
    await this.#flush(entries);
    return true;
  }

  async take(key: string): Promise<string | undefined> {
    const entries = await this.#load();
    const entry = this.#live(entries, key);
    if (!entry) return undefined;
    // Removed before any await, so no other caller in this process can read it too.
    entries.delete(key);
    await this.#flush(entries);
    return entry.value;
  }

  async delete(key: string): Promise<boolean> {
    const entries = await this.#load();
    if (!this.#live(entries, key)) return false;
    entries.delete(key);
    await this.#flush(entries);
    return true;
  }

  async deleteIf(key: string, value: string): Promise<boolean> {
    const entries = await this.#load();
    if (this.#live(entries, key)?.value !== value) return false;
    entries.delete(key);
    await this.#flush(entries);
    return true;
  }

  async replaceIf(key: string, expected: string, value: string): Promise<boolean> {
    const entries = await this.#load();
    const entry = this.#live(entries, key);
    if (entry?.value !== expected) return false;
    entry.value = value;
    await this.#flush(entries);
    return true;
  }

  async keys(prefix: string): Promise<string[]> {
    const entries = await this.#load();
    return [...entries.keys()].filter((key) => key.startsWith(prefix) && this.#live(entries, key));
  }

  rateLimiter(options: RateLimiterOptions) {
    // Counters live in the limiter object, so every limiter asked for with the same options is one.
    const id = JSON.stringify([options.keyPrefix, options.points, options.durationS]);
    let limiter = this.#limiters.get(id);
    if (!limiter) {
      const counters = new RateLimiterMemory({
        keyPrefix: options.keyPrefix,
        points: options.points,
        duration: options.durationS,
      });
      limiter = wrapLimiter(
        counters,
        (error) => new StoreUnavailable("rate limiter failed", { cause: error }),
      );
      this.#limiters.set(id, limiter);
    }
    return limiter;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#writes;
  }

  #entry(value: string, ttlMs: number | undefined): Entry {
    return ttlMs === undefined ? { value } : { value, expiresAt: this.now() + Math.max(1, ttlMs) };
  }

  /** The entry under `key` while it lives; an expired one is dropped (the next write forgets it). */
  #live(entries: Map<string, Entry>, key: string): Entry | undefined {
    const entry = entries.get(key);
    if (entry?.expiresAt === undefined || entry.expiresAt > this.now()) return entry;
    entries.delete(key);
    return undefined;
  }

  #load(): Promise<Map<string, Entry>> {
    if (this.#closed) return Promise.reject(new Error(`The store ${this.path} is closed.`));
    if (!this.#entries) {
      this.#entries = this.#read();
      // A failed read (a corrupt file) is tried again on the next call, once someone fixed it.
      this.#entries.catch(() => {
        this.#entries = undefined;
      });
    }
    return this.#entries;
  }

  async #read(): Promise<Map<string, Entry>> {
    let text: string;
    try {
      text = await readFile(this.path, "utf8");
    } catch (error) {
      const { code, message } = error as NodeJS.ErrnoException;
      if (code === "ENOENT") return new Map();
      throw new Error(`Cannot read the store ${this.path}: ${code ?? message}.`, { cause: error });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw invalidStore(this.path, "not JSON");
    }
    const parsed = fileSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      // Zod's messages name the path and the expected type, never the value.
      throw invalidStore(this.path, issue ? `${issue.path.join(".")}: ${issue.message}` : "unreadable");
    }
    return new Map(Object.entries(parsed.data.entries));
  }

  /** Resolves once the changes made so far are on disk. */
  #flush(entries: Map<string, Entry>): Promise<void> {
    if (!this.#pending) {
      const pending = this.#writes.then(() => {
        // From here on, changes wait for the next write: this one snapshots the entries now.
        this.#pending = undefined;
        return this.#write(entries);
      });
      this.#pending = pending;
      this.#writes = pending.catch(() => {});
    }
    return this.#pending;
  }

  async #write(entries: Map<string, Entry>): Promise<void> {
    const now = this.now();
    const live = [...entries].filter(([, entry]) => entry.expiresAt === undefined || entry.expiresAt > now);
    const text = `${JSON.stringify({ version: 1, entries: Object.fromEntries(live) })}\n`;
    try {
      await writePrivateFile(this.path, text);
    } catch (error) {
      // The change stays in memory and goes out with the next write that succeeds.
      const { code, message } = error as NodeJS.ErrnoException;
      throw new StoreUnavailable(`cannot write ${this.path}: ${code ?? message}`, { cause: error });
    }
  }
}

function invalidStore(path: string, reason: string): Error {
  return new Error(
    `The store ${path} is not valid (${reason}). Move it aside to start with an empty store (everyone connects again).`,
  );
}
