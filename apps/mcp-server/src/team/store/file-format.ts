import { z } from "zod";

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
