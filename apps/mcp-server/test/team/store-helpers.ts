// Helpers for the store's tests: a logger that keeps its lines, numbers from a Redis's INFO, and
// emptying a Redis.
import type { Logger } from "@toolkits/core";
import { createClient } from "redis";

export interface LogLine {
  level: string;
  message: string;
  fields: Record<string, unknown> | undefined;
}

/** A logger that keeps its lines for the test to read. */
export function recordingLogger(): Logger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const log = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    void lines.push({ level, message, fields });
  return { lines, debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
}

/**
 * A number from the INFO of the Redis at `url` (`process_id` to freeze it with SIGSTOP), asked on a
 * connection of its own, which `total_connections_received` counts.
 */
export async function redisInfo(
  url: string,
  field: "process_id" | "total_connections_received",
): Promise<number> {
  const client = createClient({ url });
  await client.connect();
  const text = await client.info();
  await client.close();
  return Number(new RegExp(`${field}:(\\d+)`).exec(text)?.[1]);
}

/** Empties the Redis at `url` (every database), for a test to start from nothing. */
export async function flushRedis(url: string): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  await client.flushAll();
  await client.close();
}
