import { z } from "zod";
import type { StoredRecord } from "./kv.js";

/**
 * The file's layout version. Records carry their own format (`sealed.ts` RECORD_FORMAT), so a new
 * record format leaves the file at 1; only a change of this layout would raise it.
 */
export const FILE_VERSION = 1;

/** The file: `{ "version": 1, "entries": { "<key>": { "value": "…", "expiresAt": <epoch ms>? } } }`. */
const fileSchema = z.object({
  version: z.literal(FILE_VERSION),
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
 * schema problem: where and what was expected, never a value); `newer` when a newer version of the
 * server wrote it (its `version` is a higher whole number), which is not a reason to move it aside.
 */
export function parseEntries(text: string): Map<string, Entry> | { invalid: string; newer?: number } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { invalid: "not JSON" };
  }
  const version = (json as { version?: unknown } | null)?.version;
  if (typeof version === "number" && Number.isInteger(version) && version > FILE_VERSION)
    return { invalid: `version ${version}`, newer: version };
  const parsed = fileSchema.safeParse(json);
  if (parsed.success) return new Map(Object.entries(parsed.data.entries));
  const issue = parsed.error.issues[0];
  return { invalid: issue ? `${issue.path.join(".")}: ${issue.message}` : "unreadable" };
}

/**
 * What a file `parseEntries` refused means, for the store's error and log line: `[problem, detail]`,
 * the problem for callers (after `its file`, no path), the detail for the log (after the path).
 */
export function refusal({ invalid, newer }: { invalid: string; newer?: number }): [string, string] {
  if (newer !== undefined)
    return [
      "was written by a newer version of the server",
      `is in version ${newer}, which a newer version of toolkits-mcp wrote: upgrade this server, and keep the file.`,
    ];
  return [
    "is not a valid store",
    `is not valid (${invalid}). Move it aside to start with an empty store (everyone connects again).`,
  ];
}

/** The file's text for the entries still live at `now` (epoch milliseconds). */
export function formatEntries(entries: Map<string, Entry>, now: number): string {
  const live = [...entries].filter(([, entry]) => entry.expiresAt === undefined || entry.expiresAt > now);
  return `${JSON.stringify({ version: FILE_VERSION, entries: Object.fromEntries(live) })}\n`;
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
