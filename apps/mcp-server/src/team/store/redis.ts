import type { Logger } from "@toolkits/core";
import { RateLimiterRedis } from "rate-limiter-flexible";
import { createClient, ErrorReply } from "redis";
import { withDeadline } from "./deadline.js";
import { type KeyValueStore, type RateLimiterOptions, StoreUnavailable } from "./kv.js";
import { wrapLimiter } from "./limiter.js";
import { connectionHealth, reason } from "./redis-health.js";
import { dumpRecords, restoreRecords } from "./redis-records.js";

/** Options for `redisStore`; the defaults suit production, tests shorten them. */
export interface RedisStoreOptions {
  /** How long opening waits for the first connection, in milliseconds (default 10 000). */
  connectTimeoutMs?: number;
  /** The longest pause between reconnection attempts, in milliseconds (default 3 000). */
  maxReconnectDelayMs?: number;
  /**
   * How long one operation may wait for Redis before it fails as StoreUnavailable, in milliseconds
   * (default 5 000).
   */
  commandTimeoutMs?: number;
  /**
   * How long the connection may stay silent before it is dropped and made again, in milliseconds
   * (default 10 000); an idle connection is kept talking by a PING every fifth of it.
   */
  silenceTimeoutMs?: number;
}

// Removes the key only while it holds the caller's value: a lock released by its owner alone.
const DELETE_IF = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`;
// Replaces the value only while it holds the expected one; KEEPTTL leaves its expiry as it was.
const REPLACE_IF = `if redis.call('get', KEYS[1]) == ARGV[1] then redis.call('set', KEYS[1], ARGV[2], 'KEEPTTL') return 1 end return 0`;

// An index is a sorted set scored by each member's expiry. A change drops the members already
// expired and has the index expire with its latest member (a sorted set has no expiry of its own).
const INDEX_EXPIRY = `redis.call('zremrangebyscore', KEYS[1], '-inf', ARGV[1])
local last = redis.call('zrange', KEYS[1], -1, -1, 'WITHSCORES')
if last[2] then redis.call('pexpireat', KEYS[1], last[2]) end
return 1`;
const INDEX_ADD = `redis.call('zadd', KEYS[1], ARGV[2], ARGV[3])\n${INDEX_EXPIRY}`;
const INDEX_REMOVE = `redis.call('zrem', KEYS[1], ARGV[2])\n${INDEX_EXPIRY}`;

// Server replies that mean "not now" rather than "wrong": the caller may retry shortly.
const TRANSIENT_REPLY = /^(LOADING|BUSY|MASTERDOWN|READONLY|TRYAGAIN|CLUSTERDOWN|OOM|NOREPLICAS)\b/;

/**
 * A KeyValueStore in Redis (`redis://…` or `rediss://…` with TLS; user, password and database
 * number from the URL), shared by every replica. Opening waits for the first connection and
 * rejects with StoreUnavailable when there is none within `connectTimeoutMs`. After that the
 * client reconnects forever (exponential backoff up to `maxReconnectDelayMs`); while it is
 * disconnected every method rejects with StoreUnavailable at once (nothing is queued), and
 * works again as soon as Redis is back. An operation Redis does not answer within
 * `commandTimeoutMs` (a frozen server, a hung host, a partition) rejects with StoreUnavailable;
 * from then on operations reject at once until Redis answers again, and a connection silent for
 * `silenceTimeoutMs` is made again, so a dead peer is left behind. The drop and the recovery are
 * logged once each (never a value, never the URL's password). Rate limits count in Redis, shared
 * by every replica.
 */
export async function redisStore(
  url: string,
  logger: Logger,
  options: RedisStoreOptions = {},
): Promise<KeyValueStore> {
  const where = describe(url);
  const maxDelay = options.maxReconnectDelayMs ?? 3_000;
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const commandTimeoutMs = options.commandTimeoutMs ?? 5_000;
  const silenceTimeoutMs = options.silenceTimeoutMs ?? 10_000;
  const client = createClient({
    url,
    disableOfflineQueue: true,
    // (No commandOptions.timeout: node-redis applies it only while a command waits to be sent, not
    // while it waits for its reply, so `run` keeps the deadline.) A healthy idle connection answers
    // a PING every fifth of the silence limit, so only one whose peer went quiet reaches it.
    pingInterval: Math.round(silenceTimeoutMs / 5),
    socket: {
      // One attempt's limit, so a silent host costs a retry rather than the whole wait.
      connectTimeout: Math.min(connectTimeoutMs, 5_000),
      // TCP may take many minutes to give up on a peer that vanished; Redis stays silent no longer.
      socketTimeout: silenceTimeoutMs,
      // Never gives up: a replica outlives a Redis restart or failover without restarting itself.
      // The jitter keeps many replicas from reconnecting in step.
      reconnectStrategy: (retries) =>
        Math.min(50 * 2 ** Math.min(retries, 16), maxDelay) + Math.floor(Math.random() * 100),
    },
  });
  const health = connectionHealth(where, logger);
  client.on("error", (error: unknown) => health.dropped(error));
  client.on("ready", () => health.answered());

  await connect(client, connectTimeoutMs, where, () => health.lastError);

  /** Runs one operation within `timeoutMs`, turning connection trouble into StoreUnavailable. */
  const run = async <T>(command: () => Promise<T>, timeoutMs = commandTimeoutMs): Promise<T> => {
    health.check(client.isReady);
    const reply = command();
    try {
      return await withDeadline(reply, timeoutMs, () => health.silent(reply, timeoutMs));
    } catch (error) {
      throw unavailable(error, where);
    }
  };
  const px = (ttlMs: number) => ({
    expiration: { type: "PX" as const, value: Math.max(1, Math.ceil(ttlMs)) },
  });

  const keys = async (prefix: string) => {
    // SCAN walks the keyspace in steps (KEYS would block Redis), each within the deadline, so a
    // large keyspace takes more steps rather than failing; it may repeat a key.
    const found = new Set<string>();
    let cursor = "0";
    do {
      const step = await run(() => client.scan(cursor, { MATCH: `${escapeGlob(prefix)}*`, COUNT: 500 }));
      cursor = step.cursor.toString();
      for (const key of step.keys) found.add(key.toString());
    } while (cursor !== "0");
    return [...found];
  };

  return {
    get: (key) => run(async () => (await client.get(key)) ?? undefined),
    set: (key, value, ttlMs) =>
      run(async () => {
        await client.set(key, value, ttlMs === undefined ? undefined : px(ttlMs));
      }),
    setIfAbsent: (key, value, ttlMs) =>
      run(async () => (await client.set(key, value, { ...px(ttlMs), condition: "NX" })) !== null),
    take: (key) => run(async () => (await client.getDel(key)) ?? undefined),
    delete: (key) => run(async () => (await client.del(key)) > 0),
    deleteIf: (key, value) =>
      run(async () => Number(await client.eval(DELETE_IF, { keys: [key], arguments: [value] })) > 0),
    replaceIf: (key, expected, value) =>
      run(
        async () => Number(await client.eval(REPLACE_IF, { keys: [key], arguments: [expected, value] })) > 0,
      ),
    has: (key) => run(async () => (await client.exists(key)) > 0),
    indexAdd: (key, member, expiresAt) =>
      run(async () => {
        await client.eval(INDEX_ADD, {
          keys: [key],
          arguments: [String(Date.now()), String(expiresAt), member],
        });
      }),
    indexRemove: (key, member) =>
      run(async () => {
        await client.eval(INDEX_REMOVE, { keys: [key], arguments: [String(Date.now()), member] });
      }),
    indexMembers: (key) =>
      run(async () => (await client.zRangeByScore(key, `(${Date.now()}`, "+inf")).map(String)),
    indexCount: (key) => run(async () => Number(await client.zCount(key, `(${Date.now()}`, "+inf"))),
    keys,
    dump: async (prefix) => dumpRecords(client, await keys(prefix), run),
    restore: (records) => restoreRecords(client, records, run),
    rateLimiter(options: RateLimiterOptions) {
      const limiter = new RateLimiterRedis({
        storeClient: client,
        useRedisPackage: true,
        rejectIfRedisNotReady: true,
        keyPrefix: options.keyPrefix,
        points: options.points,
        duration: options.durationS,
      });
      const counted = wrapLimiter(limiter, (error) => unavailable(error, where));
      return { consume: (key) => run(() => counted.consume(key)) };
    },
    ready: (timeoutMs) =>
      run(async () => {
        await client.ping();
      }, timeoutMs),
    async close() {
      const was = health.close();
      if (was === "closed") return;
      // close() waits for the replies already asked for, which a silent Redis never sends.
      if (was === "silent" || !client.isReady) return client.destroy();
      await withDeadline(client.close(), commandTimeoutMs, () => new Error("no answer")).catch(() =>
        client.destroy(),
      );
    },
  };
}

/** Waits for the first connection; on timeout gives up on the client and says why. */
async function connect(
  client: { connect(): Promise<unknown>; destroy(): void },
  timeoutMs: number,
  where: string,
  lastError: () => unknown,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  const connected = client.connect().then(
    () => "connected" as const,
    (error: unknown) => error,
  );
  const outcome = await Promise.race([connected, timeout]).finally(() => clearTimeout(timer));
  if (outcome === "connected") return;
  client.destroy();
  const cause = outcome === "timeout" ? lastError() : outcome;
  const why = cause === undefined ? "" : `: ${reason(cause)}`;
  throw new StoreUnavailable(`no connection to ${where} within ${timeoutMs} ms${why}`, { cause });
}

/** A failure as StoreUnavailable, unless Redis refused the command itself (a bug, not an outage). */
function unavailable(error: unknown, where: string): Error {
  if (error instanceof StoreUnavailable) return error;
  if (error instanceof ErrorReply && !TRANSIENT_REPLY.test(error.message)) return error;
  return new StoreUnavailable(`${where}: ${reason(error)}`, { cause: error });
}

/** The URL without its credentials or database: `redis://host:port`. */
function describe(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return "Redis";
  }
}

/** The prefix as a literal in a SCAN MATCH pattern: `*`, `?`, `[`, `]` and `\` lose their meaning. */
function escapeGlob(prefix: string): string {
  return prefix.replace(/[*?[\]\\]/g, "\\$&");
}
