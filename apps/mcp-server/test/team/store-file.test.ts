// The file store's hold on its file: one process at a time (a lock), a deadline on every
// operation (a hung file system), and readiness.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { mkdir, mkdtemp, open, readdir, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { silentLogger } from "@toolkits/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openFileStore } from "../../src/team/store/file.js";
import { openStore, StoreUnavailable } from "../../src/team/store/index.js";
import { FileLocked } from "../../src/team/store/lock.js";
import { recordingLogger } from "./store-helpers.js";

const KEY = randomBytes(32).toString("base64");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether `promise` settles within `ms` milliseconds. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const settled = promise.then(
    () => true,
    () => true,
  );
  return Promise.race([settled, sleep(ms).then(() => false)]);
}

let dir: string;
let path: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolkits-file-store-"));
  path = join(dir, "store.json");
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe("the file store's lock", () => {
  it("refuses a second store on the same file while the first is open, saying what to do", async () => {
    const first = await openFileStore(path, silentLogger, { staleMs: 2_000 });
    await first.set("k", "1");
    const started = Date.now();
    const second = await openFileStore(path, silentLogger, { staleMs: 2_000 }).catch((error) => error);
    expect(second).toBeInstanceOf(FileLocked);
    expect((second as Error).message).toBe(
      `The store file ${path} is in use by another process (its lock ${path}.lock is held). The file store serves one process: stop the other one, or give every replica MCP_STORE_URL=redis://… instead.`,
    );
    // It waited for the lock to go stale (its holder might have crashed), which it never did.
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
    expect(await first.get("k")).toBe("1");
    await first.close();

    const after = await openFileStore(path, silentLogger, { waitMs: 0 });
    expect(await after.get("k")).toBe("1");
    await after.close();
    expect(await readdir(dir)).toEqual(["store.json"]);
  }, 15_000);

  it("takes over a lock left by a process that crashed", async () => {
    await mkdir(`${path}.lock`);
    const crashed = new Date(Date.now() - 60_000);
    await utimes(`${path}.lock`, crashed, crashed);
    const store = await openFileStore(path, silentLogger, { waitMs: 0 });
    await store.set("k", "v");
    expect(await store.get("k")).toBe("v");
    await store.close();

    // A lock whose holder stopped refreshing it a moment ago is taken once it goes stale.
    await mkdir(`${path}.lock`);
    const started = Date.now();
    const later = await openFileStore(path, silentLogger, { staleMs: 2_000 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
    expect(await later.get("k")).toBe("v");
    await later.close();
  }, 15_000);

  it("takes a lost lock again on the next call, and answers unavailable while another process has it", async () => {
    const logger = recordingLogger();
    const store = await openFileStore(path, logger, { staleMs: 2_000 });
    await store.set("k", "mine");
    // Someone removes the lock: its holder notices at its next refresh (every second here).
    await rm(`${path}.lock`, { recursive: true });
    await expect.poll(() => logger.lines.map((line) => line.level), { timeout: 5_000 }).toEqual(["warn"]);
    expect(logger.lines[0]?.message).toBe(
      "The credential store lost its file's lock; it takes it again on the next call.",
    );

    // Another process wrote the file and holds the lock now.
    const other = await openFileStore(path, silentLogger, { waitMs: 0 });
    await other.set("k", "theirs");
    await expect(store.get("k")).rejects.toThrow(
      new StoreUnavailable("its file is in use by another process"),
    );
    await expect(store.ready(1_000)).rejects.toThrow(StoreUnavailable);
    await other.close();

    // Taken again, the file is read again: the other process's change is not overwritten.
    expect(await store.get("k")).toBe("theirs");
    await store.ready(1_000);
    expect(logger.lines.map(({ level, message }) => [level, message])).toEqual([
      ["warn", "The credential store lost its file's lock; it takes it again on the next call."],
      ["warn", `The store file ${path} is locked by another process.`],
      ["info", "The credential store holds its file's lock again."],
    ]);
    await store.close();
  }, 15_000);
});

describe("the file store's deadline and readiness", () => {
  it("ends an operation on a file that never answers within its deadline, as unavailable", async () => {
    // Opening a FIFO for reading blocks until a writer comes: a file system that hangs.
    execFileSync("mkfifo", [path]);
    const logger = recordingLogger();
    const store = await openFileStore(path, logger, { timeoutMs: 500 });
    try {
      const started = Date.now();
      await expect(store.get("k")).rejects.toThrow(
        new StoreUnavailable("its file did not answer within 500 ms"),
      );
      expect(Date.now() - started).toBeLessThan(1_500);
      await expect(store.ready(200)).rejects.toThrow(StoreUnavailable);
      expect(logger.lines[0]?.message).toBe(
        `The store file ${path} did not answer within 500 ms: is its file system hung?`,
      );
      expect(await settlesWithin(store.close(), 2_000)).toBe(true);
    } finally {
      // Lets the blocked read go, so no thread waits on the FIFO after the test.
      const writer = await open(path, constants.O_WRONLY | constants.O_NONBLOCK).catch(() => undefined);
      await writer?.close();
    }
  });

  it("is ready once it reads its file; not while a change cannot be written, and again once it can", async () => {
    const store = await openStore(
      { url: pathToFileURL(join(dir, "sub", "store.json")).href, key: KEY },
      silentLogger,
    );
    await store.ready();
    await store.set("tk:a", 1);
    // The directory turns into a file: writes fail whoever runs the test (root included).
    await rm(join(dir, "sub"), { recursive: true });
    await writeFile(join(dir, "sub"), "");
    await expect(store.set("tk:b", 2)).rejects.toThrow(
      /^The credential store is unreachable \(its file cannot be written \(E[A-Z]+\)\)\.$/,
    );
    const refusal = await store.ready().catch((error: Error) => error);
    expect(refusal).toBeInstanceOf(StoreUnavailable);
    expect(String(refusal)).not.toContain(dir);
    await rm(join(dir, "sub"));
    await mkdir(join(dir, "sub"));
    // Readiness writes what was kept in memory.
    await store.ready();
    await store.close();
    const reopened = await openStore(
      { url: pathToFileURL(join(dir, "sub", "store.json")).href, key: KEY },
      silentLogger,
    );
    expect([await reopened.get("tk:a"), await reopened.get("tk:b")]).toEqual([1, 2]);
    await reopened.close();
  });
});
