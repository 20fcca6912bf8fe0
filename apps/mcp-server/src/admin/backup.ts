import { z } from "zod";
import type { StoredRecord, TeamStore } from "../team/store/index.js";

/** Every record of the server lives under this prefix (Redis may hold other programs' keys). */
const PREFIX = "tk:";
const FORMAT = "toolkits-mcp store backup";

const header = z.object({
  format: z.literal(FORMAT),
  version: z.literal(1),
  /** Epoch milliseconds: the records' times to live count from here. */
  exportedAt: z.number(),
  /** The id of the store key the records are sealed under (never the key). */
  keyId: z.string(),
  records: z.number(),
});

/** A record line: a value as stored (sealed) with the milliseconds it had left, or an index. */
const line = z.union([
  z.object({ key: z.string(), value: z.string(), ttlMs: z.number().optional() }),
  z.object({ key: z.string(), members: z.record(z.string(), z.number()) }),
]);

type Line = z.infer<typeof line>;

/** What `admin export` wrote, or `admin import` read. */
export interface BackupSummary {
  records: number;
  indexes: number;
  keyId: string;
}

/**
 * The whole store as a backup: JSON lines, a header (format, version, when, the store key's id)
 * then one line per record exactly as stored: values still sealed under the store key, each with
 * the milliseconds it had left to live, and indexes (hashes only) with each member's. Nothing is
 * opened, so the backup holds no token, code or person in the clear; whoever has it and the key
 * has the store. @throws StoreUnavailable
 */
export async function exportStore(
  store: TeamStore,
  keyId: string,
): Promise<{ text: string; summary: BackupSummary }> {
  const exportedAt = Date.now();
  const records = await store.dump(PREFIX);
  const left = (at: number) => Math.max(1, at - exportedAt);
  const lines: Line[] = records.map((record) =>
    "members" in record
      ? {
          key: record.key,
          members: Object.fromEntries(
            Object.entries(record.members).map(([member, at]) => [member, left(at)]),
          ),
        }
      : {
          key: record.key,
          value: record.value,
          ...(record.expiresAt !== undefined && { ttlMs: left(record.expiresAt) }),
        },
  );
  const top: z.infer<typeof header> = {
    format: FORMAT,
    version: 1,
    exportedAt,
    keyId,
    records: lines.length,
  };
  const text = `${[top, ...lines].map((entry) => JSON.stringify(entry)).join("\n")}\n`;
  const indexes = lines.filter((entry) => "members" in entry).length;
  return { text, summary: { records: lines.length - indexes, indexes, keyId } };
}

/** A backup that cannot be restored; the message says why and what to do. */
export class BackupRefused extends Error {}

/**
 * Restores a backup `exportStore` made into `store`: each record under its own name, sealed as it
 * was, expiring when it would have (one whose time has passed is skipped). The backup must have been
 * sealed under one of `keyIds` (the current store key's, and the previous one's), and the store must
 * hold no record of the server unless `merge`.
 * @throws BackupRefused for a file that is not a backup, another key, or a store already in use;
 *   StoreUnavailable
 */
export async function importStore(
  store: TeamStore,
  text: string,
  keyIds: readonly string[],
  merge: boolean,
): Promise<BackupSummary> {
  const [first = "", ...rest] = text.split("\n").filter((entry) => entry.trim());
  const top = header.safeParse(parseJson(first));
  if (!top.success) throw new BackupRefused(`This is not a backup made by \`toolkits-mcp admin export\`.`);
  const { exportedAt, keyId } = top.data;
  if (!keyIds.includes(keyId))
    throw new BackupRefused(
      `The backup is sealed under the store key ${keyId}, and MCP_STORE_KEY is ${keyIds[0]}${keyIds[1] ? ` (MCP_STORE_KEY_PREVIOUS ${keyIds[1]})` : ""}: set MCP_STORE_KEY to the key the store had when it was exported.`,
    );
  const records: StoredRecord[] = rest.map((entry, index) => {
    const parsed = line.safeParse(parseJson(entry));
    if (!parsed.success)
      throw new BackupRefused(`Line ${index + 2} of the backup is not a record: is the file complete?`);
    const record = parsed.data;
    if ("members" in record)
      return {
        key: record.key,
        members: Object.fromEntries(
          Object.entries(record.members).map(([member, ms]) => [member, exportedAt + ms]),
        ),
      };
    return record.ttlMs === undefined
      ? { key: record.key, value: record.value }
      : { key: record.key, value: record.value, expiresAt: exportedAt + record.ttlMs };
  });
  if (records.length !== top.data.records)
    throw new BackupRefused(
      `The backup names ${top.data.records} records but holds ${records.length}: is the file complete?`,
    );
  if (!merge && (await store.keys(PREFIX)).length)
    throw new BackupRefused(
      "The store already holds records: import into an empty store (a new Redis database, a new file), or pass --merge to write the backup's records over it.",
    );
  await store.restore(records);
  const indexes = records.filter((record) => "members" in record).length;
  return { records: records.length - indexes, indexes, keyId };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
