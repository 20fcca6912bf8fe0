import type { Logger } from "@toolkits/core";
import { lock } from "proper-lockfile";

/** Timing of a store file's lock; the defaults suit production, tests shorten them. */
export interface FileLockOptions {
  /**
   * How long a lock may go without its holder refreshing it (every half of this) before another
   * process takes it over, in milliseconds (default 10 000, at least 2 000): how long a lock left
   * by a crashed process lasts.
   */
  staleMs?: number;
  /**
   * How long taking the lock at first waits for one held elsewhere to go stale, in milliseconds
   * (default `staleMs` + 1 000, so a lock left by a crash is taken over).
   */
  waitMs?: number;
}

/** Another process holds the lock and keeps it fresh. */
export class FileLocked extends Error {
  constructor(readonly path: string) {
    super(
      `The store file ${path} is in use by another process (its lock ${path}.lock is held). The file store serves one process: stop the other one, or give every replica MCP_STORE_URL=redis://… instead.`,
    );
    this.name = "FileLocked";
  }
}

const TRY_EVERY_MS = 500;

/**
 * This process's lock on the store file at `path`, with proper-lockfile: the directory
 * `<path>.lock` (made atomically), whose time stamp the holder refreshes while it holds it and
 * which it removes on release or exit. Should it be lost (not refreshed in time, say the event
 * loop stalled, or removed), that is logged, and `held()` takes it again.
 */
export class FileLock {
  #release: (() => Promise<void>) | undefined;
  #retaking: Promise<boolean> | undefined;

  private constructor(
    readonly path: string,
    readonly logger: Logger,
    readonly staleMs: number,
  ) {}

  /**
   * Takes the lock, waiting up to `options.waitMs` for one held elsewhere to go stale.
   * @throws FileLocked when another process holds it; the file system's error otherwise.
   */
  static async take(path: string, logger: Logger, options: FileLockOptions = {}): Promise<FileLock> {
    const staleMs = Math.max(options.staleMs ?? 10_000, 2_000);
    const held = new FileLock(path, logger, staleMs);
    await held.#take(options.waitMs ?? staleMs + 1_000);
    return held;
  }

  /**
   * Resolves once this process holds the lock: at once, or after taking it again (without
   * waiting) when it was lost, to `true` then, as another process may have changed the file.
   * @throws FileLocked when another process holds it now; the file system's error otherwise.
   */
  held(): Promise<boolean> {
    if (this.#release) return Promise.resolve(false);
    this.#retaking ??= this.#take(0)
      .then(() => {
        this.logger.info("The credential store holds its file's lock again.", { store: this.path });
        return true;
      })
      .finally(() => {
        this.#retaking = undefined;
      });
    return this.#retaking;
  }

  /** Releases the lock (never rejects). */
  async release(): Promise<void> {
    const release = this.#release;
    this.#release = undefined;
    await release?.().catch(() => {});
  }

  async #take(waitMs: number): Promise<void> {
    try {
      this.#release = await lock(this.path, {
        stale: this.staleMs,
        realpath: false,
        retries: { retries: Math.ceil(waitMs / TRY_EVERY_MS), factor: 1, minTimeout: TRY_EVERY_MS },
        onCompromised: (error) => this.#lost(error),
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ELOCKED") throw new FileLocked(this.path);
      throw error;
    }
  }

  #lost(error: Error): void {
    this.#release = undefined;
    this.logger.warn("The credential store lost its file's lock; it takes it again on the next call.", {
      store: this.path,
      reason: error.message,
    });
  }
}
