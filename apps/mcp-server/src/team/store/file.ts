import { readFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { Logger } from "@toolkits/core";
import { privateDirectory, writePrivateFile } from "../../files.js";
import { withDeadline } from "./deadline.js";
import * as format from "./file-format.js";
import { type KeyValueStore, type StoredRecord, StoreUnavailable } from "./kv.js";
import { memoryLimiters } from "./limiter.js";
import { FileLock, FileLocked, type FileLockOptions } from "./lock.js";

/** Options for `openFileStore`; the defaults suit production, tests shorten them. */
export interface FileStoreOptions extends FileLockOptions {
  /** How long one operation may wait for the file system, in milliseconds (default 5 000). */
  timeoutMs?: number;
  /** The clock, in epoch milliseconds. */
  now?: () => number;
}

/**
 * Opens a KeyValueStore in one JSON file, for a single process, which owns the file: it is read
 * once, on first use, and then kept in memory. Opening creates the file's directory when missing
 * (mode 0700; an existing directory keeps its mode) and takes the file's lock (`FileLock`), so a
 * second process is refused instead of each overwriting the other's changes. Every change is
 * written before its promise resolves: the whole file is replaced atomically (a temporary file in
 * the same directory, fsync, rename), mode 0600, and changes made while a write is under way share
 * the next one. Expired entries read as absent and are dropped from the next write. Rate limits
 * count in this process's memory (one process owns the file, so that is every process there is).
 * Methods reject with StoreUnavailable naming no path (callers' errors reach people) when the file
 * cannot be read or written, is not a valid store, is locked by another process, or does not
 * answer within `timeoutMs`; the path and what to do go to `logger`, once until it works again.
 * @throws FileLocked when another process holds the file; the file system's error when its
 *   directory cannot be made or its lock taken.
 */
export async function openFileStore(
  path: string,
  logger: Logger,
  options: FileStoreOptions = {},
): Promise<KeyValueStore> {
  await privateDirectory(dirname(path));
  return new FileStore(path, logger, await FileLock.take(path, logger, options), options);
}

class FileStore implements KeyValueStore {
  #entries: Promise<Map<string, format.Entry>> | undefined;
  /** The write not yet started, which the changes made now will ride on. */
  #pending: Promise<void> | undefined;
  /** The tail of the write queue: writes run one at a time, in order. */
  #writes: Promise<void> = Promise.resolve();
  /** Whether the last write failed, leaving changes in memory only. */
  #unwritten = false;
  #closed = false;
  /** The problem last logged, so it is logged once until the file works again. */
  #reported: string | undefined;
  readonly now: () => number;
  readonly timeoutMs: number;

  constructor(
    readonly path: string,
    readonly logger: Logger,
    readonly lock: FileLock,
    options: FileStoreOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.timeoutMs = options.timeoutMs ?? 5_000;
  }

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
    return (await this.#remove(key, () => true))?.value;
  }

  async delete(key: string): Promise<boolean> {
    return (await this.#remove(key, () => true)) !== undefined;
  }

  async deleteIf(key: string, value: string): Promise<boolean> {
    return (await this.#remove(key, (entry) => entry.value === value)) !== undefined;
  }

  /** Removes `key` when it lives and `when` holds for it; resolves to the entry removed. */
  async #remove(key: string, when: (entry: format.Entry) => boolean): Promise<format.Entry | undefined> {
    const entries = await this.#load();
    const entry = this.#live(entries, key);
    if (!entry || !when(entry)) return undefined;
    // Removed before any await, so no other caller in this process can read it too (single-use codes).
    entries.delete(key);
    await this.#flush(entries);
    return entry;
  }

  async replaceIf(key: string, expected: string, value: string): Promise<boolean> {
    const entries = await this.#load();
    const entry = this.#live(entries, key);
    if (entry?.value !== expected) return false;
    entry.value = value;
    await this.#flush(entries);
    return true;
  }

  async has(key: string): Promise<boolean> {
    return this.#live(await this.#load(), key) !== undefined;
  }

  async indexAdd(key: string, member: string, expiresAt: number): Promise<void> {
    await this.#changeIndex(key, (members) => members.set(member, expiresAt));
  }

  async indexRemove(key: string, member: string): Promise<void> {
    await this.#changeIndex(key, (members) => members.delete(member));
  }

  async indexMembers(key: string): Promise<string[]> {
    return [...format.indexMembers(this.#live(await this.#load(), key), this.now()).keys()];
  }

  async indexCount(key: string): Promise<number> {
    return format.indexMembers(this.#live(await this.#load(), key), this.now()).size;
  }

  async #changeIndex(key: string, change: (members: Map<string, number>) => unknown): Promise<void> {
    const entries = await this.#load();
    const members = format.indexMembers(this.#live(entries, key), this.now());
    change(members);
    const entry = format.indexEntry(members);
    if (entry) entries.set(key, entry);
    else entries.delete(key);
    await this.#flush(entries);
  }

  async keys(prefix: string): Promise<string[]> {
    const entries = await this.#load();
    return [...entries.keys()].filter((key) => key.startsWith(prefix) && this.#live(entries, key));
  }

  async dump(prefix: string): Promise<StoredRecord[]> {
    return format.dumpEntries(await this.#load(), prefix, this.now());
  }

  async restore(records: readonly StoredRecord[]): Promise<void> {
    const entries = await this.#load();
    format.restoreEntries(entries, records, this.now());
    await this.#flush(entries);
  }

  readonly rateLimiter = memoryLimiters();

  async ready(timeoutMs: number): Promise<void> {
    const check = async () => {
      const entries = await this.#load();
      // Changes whose write failed are written now, so the store is ready again once the disk is.
      if (this.#unwritten) await this.#flush(entries);
    };
    await withDeadline(check(), timeoutMs, () => this.#late(timeoutMs));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await withDeadline(this.#writes, this.timeoutMs, () => this.#late(this.timeoutMs)).catch(() => {});
    await this.lock.release();
  }

  #entry(value: string, ttlMs: number | undefined): format.Entry {
    return ttlMs === undefined ? { value } : { value, expiresAt: this.now() + Math.max(1, ttlMs) };
  }

  /** The entry under `key` while it lives; an expired one is dropped (the next write forgets it). */
  #live(entries: Map<string, format.Entry>, key: string): format.Entry | undefined {
    const entry = entries.get(key);
    if (entry?.expiresAt === undefined || entry.expiresAt > this.now()) return entry;
    entries.delete(key);
    return undefined;
  }

  #load(): Promise<Map<string, format.Entry>> {
    if (this.#closed) return Promise.reject(new Error(`The store ${this.path} is closed.`));
    return withDeadline(this.#loaded(), this.timeoutMs, () => this.#late(this.timeoutMs));
  }

  async #loaded(): Promise<Map<string, format.Entry>> {
    if (await this.#owned()) {
      // Another process may have written the file meanwhile: read it again once the queued writes are out.
      await this.#writes;
      this.#entries = undefined;
    }
    if (!this.#entries) {
      this.#entries = this.#read();
      // A failed read (a corrupt file) is tried again on the next call, once someone fixed it.
      this.#entries.catch(() => {
        this.#entries = undefined;
      });
    }
    return this.#entries;
  }

  async #read(): Promise<Map<string, format.Entry>> {
    let text: string;
    try {
      text = await readFile(this.path, "utf8");
    } catch (error) {
      const code = errorCode(error);
      if (code === "ENOENT") return new Map();
      throw this.#unavailable(`cannot be read (${code})`, `cannot be read: ${code}.`);
    }
    const entries = format.parseEntries(text);
    if (!(entries instanceof Map)) throw this.#unavailable(...format.refusal(entries));
    this.#reported = undefined;
    return entries;
  }

  /** Resolves once the changes made so far are on disk. */
  #flush(entries: Map<string, format.Entry>): Promise<void> {
    if (!this.#pending) {
      const pending = this.#writes.then(() => {
        // From here on, changes wait for the next write: this one snapshots the entries now.
        this.#pending = undefined;
        return this.#write(entries);
      });
      this.#pending = pending;
      this.#writes = pending.catch(() => {});
    }
    return withDeadline(this.#pending, this.timeoutMs, () => this.#late(this.timeoutMs));
  }

  async #write(entries: Map<string, format.Entry>): Promise<void> {
    try {
      await writePrivateFile(this.path, format.formatEntries(entries, this.now()));
    } catch (error) {
      // The change stays in memory and goes out with the next write that succeeds.
      this.#unwritten = true;
      const code = errorCode(error);
      throw this.#unavailable(
        `cannot be written (${code})`,
        `cannot be written: ${code}. Changes are kept in memory until a write succeeds.`,
      );
    }
    this.#unwritten = false;
    this.#reported = undefined;
  }

  /** Resolves to whether the file's lock was taken again (see FileLock.held), as StoreUnavailable. */
  async #owned(): Promise<boolean> {
    try {
      return await this.lock.held();
    } catch (error) {
      if (error instanceof FileLocked)
        throw this.#unavailable("is in use by another process", "is locked by another process.");
      const code = errorCode(error);
      throw this.#unavailable(`cannot be locked (${code})`, `cannot be locked: ${code}.`);
    }
  }

  #late(timeoutMs: number): StoreUnavailable {
    return this.#unavailable(
      `did not answer within ${timeoutMs} ms`,
      `did not answer within ${timeoutMs} ms: is its file system hung?`,
    );
  }

  /**
   * The error for callers, naming no path since it reaches people (`its file <problem>`); the
   * operator's log line names the file (`The store file <path> <detail>`), once until it works again.
   */
  #unavailable(problem: string, detail: string): StoreUnavailable {
    if (this.#reported !== detail) {
      this.#reported = detail;
      this.logger.warn(`The store file ${this.path} ${detail}`, { store: this.path });
    }
    return new StoreUnavailable(`its file ${problem}`);
  }
}

/** A file system error's code (`ENOENT`), or its message when it has none. */
function errorCode(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException;
  return code ?? message;
}
