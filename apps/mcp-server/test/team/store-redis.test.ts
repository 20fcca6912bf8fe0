// The Redis store: the names its rate-limit counters have in Redis, and what it does when Redis
// stops answering without closing anything: frozen with SIGSTOP, as a hung host or a network
// partition leaves it. Every operation must end within its deadline, and the store must recover by
// itself once Redis answers again.
import { randomBytes } from "node:crypto";
import { silentLogger } from "@toolkits/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registrationGate } from "../../src/team/authorize/registration.js";
import { DEFAULT_RATE_LIMITS, personLimits } from "../../src/team/limits.js";
import {
  hashKey,
  openStore,
  StoreUnavailable,
  type TeamStore,
  teamStore,
} from "../../src/team/store/index.js";
import { redisStore } from "../../src/team/store/redis.js";
import { createSealer } from "../../src/team/store/sealed.js";
import { INSTALL_TIMEOUT_MS, type RedisServer, startRedis } from "./redis.js";
import { recordingLogger, redisInfo } from "./store-helpers.js";

const KEY = randomBytes(32).toString("base64");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Short timings, so the test takes seconds: one operation waits 1 s, a connection may be silent 2 s. */
const TIMINGS = { commandTimeoutMs: 1_000, silenceTimeoutMs: 2_000, maxReconnectDelayMs: 1_000 };

/** Milliseconds `operation` took to settle, and how. */
async function timed(operation: () => Promise<unknown>): Promise<{ ms: number; error: unknown }> {
  const started = performance.now();
  const error = await operation().then(
    () => undefined,
    (failure: unknown) => failure,
  );
  return { ms: performance.now() - started, error };
}

/** Milliseconds until `operation` succeeds, trying every 50 ms for at most `limitMs`. */
async function untilItWorks(operation: () => Promise<unknown>, limitMs: number): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < limitMs) {
    if ((await timed(operation)).error === undefined) return performance.now() - started;
    await sleep(50);
  }
  return Number.POSITIVE_INFINITY;
}

let redis: RedisServer;
let pid: number;
beforeAll(async () => {
  redis = await startRedis();
  pid = await redisInfo(redis.url, "process_id");
}, INSTALL_TIMEOUT_MS);
afterAll(async () => {
  process.kill(pid, "SIGCONT");
  await redis?.stop();
});

describe("the Redis store's rate-limit counters", () => {
  it("are named tk:limit:<budget>:<hash of the person> and tk:as:register:<hash of the address>", async () => {
    const store = await openStore({ url: redis.url, key: KEY }, silentLogger);
    try {
      const limits = personLimits(store, DEFAULT_RATE_LIMITS, 0);
      await limits.take("pager", "token:alice", undefined);
      await limits.take("sheets-read", "token:alice", undefined);
      expect(await registrationGate(store, silentLogger)("127.0.0.2")).toBeUndefined();
      const counters = [...(await redis.records()).keys()].filter((key) => /limit|register/.test(key));
      expect(counters.sort()).toEqual([
        `tk:as:register:${hashKey("127.0.0.2")}`,
        `tk:limit:pager:${hashKey("token:alice")}`,
        `tk:limit:sheets-read:${hashKey("token:alice")}`,
      ]);
    } finally {
      await store.close();
    }
  });
});

describe("the Redis store while Redis is frozen", () => {
  let store: TeamStore;
  const logger = recordingLogger();

  beforeAll(async () => {
    const kv = await redisStore(redis.url, logger, TIMINGS);
    store = teamStore(kv, createSealer(KEY, undefined, silentLogger));
    await store.set("tk:conn:a", { accessToken: "a" });
  });
  afterAll(() => store?.close());

  it.each([
    { frozenMs: 1_500, reconnected: false, how: "before the connection is given up" },
    { frozenMs: 6_000, reconnected: true, how: "after the connection was given up and made again" },
  ])(
    "fails every operation within its deadline, and recovers when it thaws $how",
    async ({ frozenMs, reconnected }) => {
      logger.lines.length = 0;
      const connections = await redisInfo(redis.url, "total_connections_received");
      const limiter = store.rateLimiter({ keyPrefix: "tk:limit:pager", points: 100, durationS: 60 });
      await store.ready();
      process.kill(pid, "SIGSTOP");
      const frozenAt = performance.now();
      try {
        const first = await timed(() => store.get("tk:conn:a"));
        expect(first.error).toBeInstanceOf(StoreUnavailable);
        expect(String(first.error)).toMatch(/\(redis:\/\/127\.0\.0\.1:\d+ did not answer within 1000 ms\)/);
        expect(first.ms).toBeGreaterThanOrEqual(950);
        expect(first.ms).toBeLessThan(2_000);
        // From then on, nothing waits: locks, rate limits and readiness included.
        for (const operation of [
          () => store.get("tk:conn:a"),
          () => store.set("tk:conn:b", 1),
          () => store.take("tk:code:c"),
          () => store.keys("tk:"),
          () => store.tryLock("tk:lock:refresh", 30_000),
          () => limiter.consume("token:alice"),
          () => store.ready(),
        ]) {
          const next = await timed(operation);
          expect(next.error).toBeInstanceOf(StoreUnavailable);
          expect(next.ms).toBeLessThan(100);
        }
        await sleep(frozenMs - (performance.now() - frozenAt));
      } finally {
        process.kill(pid, "SIGCONT");
      }
      const recoveryMs = await untilItWorks(() => store.get("tk:conn:a"), 10_000);
      expect(recoveryMs).toBeLessThan(5_000);
      expect(await store.get("tk:conn:a")).toEqual({ accessToken: "a" });
      // Connections the store made meanwhile (the count includes each INFO's own).
      const made = (await redisInfo(redis.url, "total_connections_received")) - connections - 1;
      expect(made > 0).toBe(reconnected);
      const release = await store.tryLock("tk:lock:refresh", 30_000);
      expect(release).toBeTypeOf("function");
      await release?.();
      expect(await limiter.consume("token:alice")).toBe(0);
      await store.ready();
      expect(logger.lines).toEqual([
        {
          level: "warn",
          message: "The credential store's Redis stopped answering; calls fail until it answers again.",
          fields: { store: redis.url, waited_ms: 1_000 },
        },
        {
          level: "info",
          message: "The credential store's Redis connection is back.",
          fields: { store: redis.url },
        },
      ]);
    },
    30_000,
  );

  it("closes within its deadline while Redis is frozen", async () => {
    const other = await openStore({ url: redis.url, key: KEY }, silentLogger);
    process.kill(pid, "SIGSTOP");
    try {
      const closing = await timed(() => other.close());
      expect(closing.ms).toBeLessThan(6_000);
    } finally {
      process.kill(pid, "SIGCONT");
    }
  }, 15_000);
});
