import { z } from "zod";
import type { StoredRecord } from "./kv.js";

/** The file: `{ "version": 1, "entries": { "<key>": { "value": "…", "expiresAt": <epoch ms>? } } }`. */
const fileSchema = z.object({
  version: z.literal(1),
  entries: z.record(z.string(), z.object({ value: z.string(), expiresAt: z.number().optional() })),
});

/** One stored value. */
export interface Entry {
  value: string;
  /** Epoch milliseconds; absent for a value that never expires. */
  expiresAt?: number;
}

/**
 * The entries of a store file's `text`, or why it is not a store file (`not JSON`, or the first
 * schema problem: where and what was expected, never a value).
 */
export function parseEntries(text: string): Map<string, Entry> | { invalid: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { invalid: "not JSON" };
  }
  const parsed = fileSchema.safeParse(json);
  if (parsed.success) return new Map(Object.entries(parsed.data.entries));
  const issue = parsed.error.issues[0];
  return { invalid: issue ? `${issue.path.join(".")}: ${issue.message}` : "unreadable" };
}

/** The file's text for the entries still live at `now` (epoch milliseconds). */
export function formatEntries(entries: Map<string, Entry>, now: number): string {
  const live = [...entries].filter(([, entry]) => entry.expiresAt === undefined || entry.expiresAt > now);
  return `${JSON.stringify({ version: 1, entries: Object.fromEntries(live) })}\n`;
}

/** The live members of an index stored as one entry (a JSON object of member → expiry, epoch ms). */
export function indexMembers(entry: Entry | undefined, now: number): Map<string, number> {
  const stored = JSON.parse(entry?.value ?? "{}") as Record<string, number>;
  return new Map(Object.entries(stored).filter(([, expiresAt]) => expiresAt > now));
}

/** The entry holding an index's `members`, expiring with the latest; undefined for an empty index. */
export function indexEntry(members: Map<string, number>): Entry | undefined {
  if (!members.size) return undefined;
  return { value: JSON.stringify(Object.fromEntries(members)), expiresAt: Math.max(...members.values()) };
}

/**
 * Whether an entry holds an index: its value is a JSON object of member → expiry. A sealed value
 * (dot-separated base64url) and a lock's owner (base64url) never start with `{`.
 */
const isIndex = (entry: Entry): boolean => entry.value.startsWith("{");

/** The entries under `prefix` still live at `now`, as `KeyValueStore.dump` gives them. */
export function dumpEntries(entries: Map<string, Entry>, prefix: string, now: number): StoredRecord[] {
  const records: StoredRecord[] = [];
  for (const [key, entry] of entries) {
    if (!key.startsWith(prefix) || (entry.expiresAt !== undefined && entry.expiresAt <= now)) continue;
    if (!isIndex(entry)) records.push({ key, value: entry.value, expiresAt: entry.expiresAt });
    else {
      const members = indexMembers(entry, now);
      if (members.size) records.push({ key, members: Object.fromEntries(members) });
    }
  }
  return records;
}

/** Writes `records` (as `dumpEntries` gives them) into `entries`, skipping what has expired by `now`. */
export function restoreEntries(
  entries: Map<string, Entry>,
  records: readonly StoredRecord[],
  now: number,
): void {
  for (const record of records) {
    if ("members" in record) {
      const entry = indexEntry(new Map(Object.entries(record.members).filter(([, at]) => at > now)));
      if (entry) entries.set(record.key, entry);
    } else if (record.expiresAt === undefined || record.expiresAt > now)
      entries.set(record.key, { value: record.value, expiresAt: record.expiresAt });
  }
}
