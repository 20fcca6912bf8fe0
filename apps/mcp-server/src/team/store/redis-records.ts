import type { RedisClientType } from "redis";
import type { StoredRecord } from "./kv.js";

/** How many records one round trip of a backup reads or writes. */
const BATCH = 200;

/** The node-redis client of a store, as `createClient` made it. */
// biome-ignore lint/complexity/noBannedTypes: node-redis names a client without modules by `{}`.
type Client = RedisClientType<{}, {}, {}, 3, {}>;

/** Runs one operation within the store's deadline (see `redisStore`). */
type Run = <T>(command: () => Promise<T>) => Promise<T>;

/** The records under `keys` as stored, read in batches of pipelined commands, each within the deadline. */
export async function dumpRecords(
  client: Client,
  keys: readonly string[],
  run: Run,
): Promise<StoredRecord[]> {
  const records: StoredRecord[] = [];
  for (let at = 0; at < keys.length; at += BATCH) {
    const batch = keys.slice(at, at + BATCH);
    const read = await run(() => Promise.all(batch.map((key) => dumpOne(client, key))));
    records.push(...read.filter((record) => record !== undefined));
  }
  return records;
}

/** Writes `records` as `dumpRecords` read them, in batches, each within the deadline. */
export async function restoreRecords(
  client: Client,
  records: readonly StoredRecord[],
  run: Run,
): Promise<void> {
  for (let at = 0; at < records.length; at += BATCH) {
    const batch = records.slice(at, at + BATCH);
    await run(() => Promise.all(batch.map((record) => restoreOne(client, record))));
  }
}

/** The record under `key` as stored: a string with its expiry, a sorted set as an index; else undefined. */
async function dumpOne(client: Client, key: string): Promise<StoredRecord | undefined> {
  const type = await client.type(key);
  if (type === "string") {
    const [value, ttl] = await Promise.all([client.get(key), client.pTTL(key)]);
    if (value === null || ttl === -2) return undefined;
    return ttl < 0 ? { key, value } : { key, value, expiresAt: Date.now() + ttl };
  }
  if (type !== "zset") return undefined;
  const live = await client.zRangeByScoreWithScores(key, `(${Date.now()}`, "+inf");
  if (!live.length) return undefined;
  return { key, members: Object.fromEntries(live.map(({ value, score }) => [String(value), score])) };
}

/** Writes one record as `dumpOne` read it, replacing the key; one already expired is skipped. */
async function restoreOne(client: Client, record: StoredRecord): Promise<void> {
  const now = Date.now();
  if (!("members" in record)) {
    if (record.expiresAt !== undefined && record.expiresAt <= now) return;
    const expiry =
      record.expiresAt === undefined
        ? {}
        : { expiration: { type: "PXAT" as const, value: record.expiresAt } };
    await client.set(record.key, record.value, expiry);
    return;
  }
  const live = Object.entries(record.members).filter(([, expiresAt]) => expiresAt > now);
  if (!live.length) return;
  const last = Math.max(...live.map(([, expiresAt]) => expiresAt));
  await client
    .multi()
    .del(record.key)
    .zAdd(
      record.key,
      live.map(([value, score]) => ({ value, score })),
    )
    .pExpireAt(record.key, last)
    .exec();
}
