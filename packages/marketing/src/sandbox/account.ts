import { EXAMPLES } from "./examples.generated.js";

/** One collection as the sandbox keeps it. */
export interface Collection {
  id: number;
  name: string;
  data?: unknown;
  url?: string;
  created_at: number;
  updated_at: number;
}

/** One segment and its members' identifiers. */
export interface Segment {
  record: Record<string, unknown>;
  members: { email: string; id: string; cio_id: string }[];
}

export interface Snippet {
  name: string;
  value: string;
  updated_at: number;
}

export interface Suppression {
  email: string;
  created: number;
  reason: string;
  status: string;
}

/** The in-memory workspace behind the stateful endpoints. */
export interface Account {
  collections: Map<number, Collection>;
  snippets: Map<string, Snippet>;
  /** Snippet names a message uses: deleting them fails like upstream. */
  snippetsInUse: Set<string>;
  segments: Map<number, Segment>;
  suppressions: Record<"bounces" | "spam_reports", Suppression[]>;
  nextId: number;
}

/** Members of the seeded segment: enough to page through with small page sizes. */
export const SEEDED_MEMBERS = 25;
const NOW = 1_700_000_000;

const example = (tool: string): Record<string, unknown> =>
  structuredClone((EXAMPLES.responses[`MarketingApi.${tool}`]?.body ?? {}) as Record<string, unknown>);

/** A fresh account seeded from the upstream's examples. */
export function createAccount(): Account {
  const seededSegment = (example("GetSegmentInfo").segment ?? {}) as Record<string, unknown>;
  const seededSnippet = (example("UpdateOrCreateSnippet").snippet ?? {}) as unknown as Snippet;
  const seededSuppression = (example("FindSuppressedEmailAddresses").suppressions as Suppression[])[0];
  const collectionBody = EXAMPLES.requests["MarketingApi.CreateNewCollection"] as {
    name: string;
    data: unknown;
  };
  const account: Account = {
    collections: new Map([
      [1, { id: 1, name: collectionBody.name, data: collectionBody.data, created_at: NOW, updated_at: NOW }],
    ]),
    snippets: new Map([
      [seededSnippet.name, seededSnippet],
      ["footer", { name: "footer", value: "<p>Unsubscribe any time.</p>", updated_at: NOW }],
    ]),
    snippetsInUse: new Set(["footer"]),
    segments: new Map(),
    suppressions: { bounces: seededSuppression ? [seededSuppression] : [], spam_reports: [] },
    nextId: 100,
  };
  const members = Array.from({ length: SEEDED_MEMBERS }, (_, i) => ({
    email: `person${i + 1}@example.com`,
    id: String(i + 1),
    cio_id: `a30000${String(i + 1).padStart(2, "0")}`,
  }));
  account.segments.set(Number(seededSegment.id ?? 7), { record: seededSegment, members });
  return account;
}

/** A collection as the upstream describes it: size and top-level keys, not the data. */
export function collectionRecord(collection: Collection): Record<string, unknown> {
  const rows = Array.isArray(collection.data) ? collection.data : [];
  const keys = new Set(rows.flatMap((row) => (row && typeof row === "object" ? Object.keys(row) : [])));
  return {
    id: collection.id,
    name: collection.name,
    bytes: Buffer.byteLength(JSON.stringify(collection.data ?? collection.url ?? "")),
    rows: rows.length,
    schema: [...keys].sort(),
    created_at: collection.created_at,
    updated_at: collection.updated_at,
  };
}

export const timestamp = (): number => Math.floor(Date.now() / 1000);
