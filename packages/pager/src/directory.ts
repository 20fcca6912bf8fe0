// The fuzzy user search over a scanned directory. Pager.SearchUsers imports this module on its first
// call, so Fuse loads then and not with the toolkit; the limits and the cache are in directory-cache.ts.
import type { ProgressUpdate } from "@toolkits/core";
import Fuse, { type FuseIndex, type IFuseOptions } from "fuse.js";
import { MAX_OFFSET_PLUS_LIMIT, MAX_PAGE_SIZE, type PagerClient } from "./client.js";
import {
  ACCEPT_CONFIDENCE,
  ACCEPT_MARGIN,
  cacheDirectory,
  cachedDirectory,
  MAX_MATCHES,
} from "./directory-cache.js";
import type { PdUser } from "./types.js";

/** Directory pages fetched at once. */
export const SCAN_CONCURRENCY = 8;

const FUSE_KEYS = ["name", "email"] as const;
// Fuse scores 0 (exact) to 1; 0.4 keeps matches of confidence 0.6 and up.
const FUSE_THRESHOLD = 0.4;
const FUSE_OPTIONS: IFuseOptions<PdUser> = {
  keys: [...FUSE_KEYS],
  includeScore: true,
  ignoreLocation: true,
  threshold: FUSE_THRESHOLD,
};
/** Fuse's bitap compares at most this many query characters at once; longer queries go in chunks. */
const FUSE_CHUNK_LENGTH = 32;

/** A user matched by the fuzzy search; `confidence` is 1 − Fuse's score, from 0 to 1. */
export interface UserMatch {
  user: PdUser;
  confidence: number;
}

/** The users of an account as far as PagerDuty lets them be listed. */
export interface UserDirectory {
  users: PdUser[];
  /** False when the account has more users than the 10,000 PagerDuty lets a list reach. */
  complete: boolean;
  /** Fuse's index of every name and email, built once per scan (about 3.7 MB for 10,000 users). */
  index: FuseIndex<PdUser>;
  /**
   * Per user, the name and the email lower-cased as Fuse compares them, joined by a newline (about
   * 0.65 MB for 10,000 users).
   */
  haystacks: string[];
}

/**
 * The whole directory for the client's credential: from the cache when fresh, else scanned
 * (pages of 100 fetched `SCAN_CONCURRENCY` at a time, never past offset + limit 10,000) and cached
 * for `DIRECTORY_TTL_MS`. A failed scan is not cached.
 */
export function userDirectory(
  client: PagerClient,
  progress: (update: ProgressUpdate) => void,
): Promise<UserDirectory> {
  const cached = cachedDirectory(client);
  if (cached) return cached;
  const directory = scanDirectory(client, progress);
  cacheDirectory(client, directory);
  return directory;
}

async function scanDirectory(
  client: PagerClient,
  progress: (update: ProgressUpdate) => void,
): Promise<UserDirectory> {
  const fetchPage = (offset: number, total?: boolean) =>
    client.users({ limit: MAX_PAGE_SIZE, offset, total, include: ["teams"] });
  const first = await fetchPage(0, true);
  const reachable = Math.min(first.total ?? MAX_OFFSET_PLUS_LIMIT, MAX_OFFSET_PLUS_LIMIT);
  const pages = new Map<number, PdUser[]>([[0, first.items]]);
  const state = { next: MAX_PAGE_SIZE, end: first.more ? reachable : MAX_PAGE_SIZE, complete: true };
  let fetched = first.items.length;
  const report = () =>
    progress({ progress: fetched, total: reachable, message: `Scanned ${fetched} of ${reachable} users` });
  report();
  const worker = async () => {
    while (state.next < state.end) {
      const offset = state.next;
      state.next += MAX_PAGE_SIZE;
      const page = await fetchPage(offset);
      pages.set(offset, page.items);
      fetched += page.items.length;
      if (!page.more) state.end = Math.min(state.end, offset + MAX_PAGE_SIZE);
      else if (offset + MAX_PAGE_SIZE >= MAX_OFFSET_PLUS_LIMIT) state.complete = false;
      report();
    }
  };
  await Promise.all(Array.from({ length: SCAN_CONCURRENCY }, worker));
  const users = [...pages.entries()].sort(([a], [b]) => a - b).flatMap(([, items]) => items);
  return directoryOf(users, state.complete);
}

/** A directory of `users`, indexed once so that every later search only reads the index. */
export function directoryOf(users: PdUser[], complete: boolean): UserDirectory {
  return {
    users,
    complete,
    index: Fuse.createIndex([...FUSE_KEYS], users),
    haystacks: users.map((user) => FUSE_KEYS.map((key) => `${user[key] ?? ""}`.toLowerCase()).join("\n")),
  };
}

/**
 * The best matches for `query` in the directory, most confident first: the same users, order and
 * confidences as Fuse over the whole directory. Fuse's bitap costs about 10 µs per user (over 100 ms
 * for 10,000), so Fuse only scores the users an exact edit-distance check cannot rule out.
 */
export function matchDirectory(directory: UserDirectory, query: string): UserMatch[] {
  const { index, haystacks, users } = directory;
  const chunks = fuseChunks(query.toLowerCase()).map(compileChunk);
  // A stretch within a name or an email lies within the haystack too; one spanning the newline
  // merely lets Fuse score a user it then rejects.
  const records = index.records.filter((record) =>
    chunks.some((chunk) => withinEdits(haystacks[record.i] ?? "", chunk)),
  );
  // Records keep their position in `users`, so Fuse breaks ties between equal scores as before.
  const narrowed = Fuse.parseIndex<PdUser>({ keys: index.keys, records });
  return matchUsers(new Fuse(users, FUSE_OPTIONS, narrowed), query);
}

/** A query chunk prepared for `withinEdits`. */
interface Chunk {
  /** Per UTF-16 code unit, bit i is set when the chunk's character i is that code unit. */
  positions: Int32Array;
  length: number;
  /** The most edits Fuse tolerates for this chunk. */
  maxEdits: number;
}

// As Fuse's BitapSearch splits a query: 32 characters at a time, the last chunk ending at the end.
function fuseChunks(pattern: string): string[] {
  if (pattern.length <= FUSE_CHUNK_LENGTH) return [pattern];
  const starts = Array.from(
    { length: Math.floor(pattern.length / FUSE_CHUNK_LENGTH) },
    (_, i) => i * FUSE_CHUNK_LENGTH,
  );
  if (pattern.length % FUSE_CHUNK_LENGTH) starts.push(pattern.length - FUSE_CHUNK_LENGTH);
  return starts.map((start) => pattern.slice(start, start + FUSE_CHUNK_LENGTH));
}

function compileChunk(chunk: string): Chunk {
  // A slot for every UTF-16 code unit (256 KB, dropped after the query) makes the lookup in the
  // loop over every haystack a plain array read.
  const positions = new Int32Array(0x10000);
  for (let i = 0; i < chunk.length; i++) {
    const code = chunk.charCodeAt(i);
    positions[code] = (positions[code] ?? 0) | (1 << i);
  }
  // Fuse tries 0, 1, 2… errors while errors / length stays within the threshold; the same
  // floating-point comparison keeps the limit identical at the boundaries.
  let maxEdits = 0;
  while (maxEdits + 1 < chunk.length && (maxEdits + 1) / chunk.length <= FUSE_THRESHOLD) maxEdits++;
  return { positions, length: chunk.length, maxEdits };
}

/**
 * Whether some stretch of `text` is within `chunk.maxEdits` insertions, deletions and substitutions
 * of the chunk: Myers' bit-vector algorithm (1999), one pass and no allocation. Fuse's bitap grows a
 * match only by such edits, each counted as an error, so `false` means Fuse cannot match the text.
 */
function withinEdits(text: string, { positions, length, maxEdits }: Chunk): boolean {
  const top = 1 << (length - 1);
  // Vertical deltas of the current column: all +1, as the first column is 0, 1, 2…
  let plus = -1;
  let minus = 0;
  // The fewest edits between the chunk and a stretch of text ending at the current character.
  let edits = length;
  for (let j = 0; j < text.length; j++) {
    const equal = positions[text.charCodeAt(j)] ?? 0;
    const xv = equal | minus;
    // The sum may pass 32 bits; `^` keeps its low 32 bits, the only ones that mean anything.
    const xh = (((equal & plus) + plus) ^ plus) | equal;
    const hPlus = minus | ~(xh | plus);
    const hMinus = plus & xh;
    if (hPlus & top) edits++;
    else if (hMinus & top) edits--;
    if (edits <= maxEdits) return true;
    // No `| 1` after the shifts: a match may start anywhere in the text at no cost.
    plus = (hMinus << 1) | ~(xv | (hPlus << 1));
    minus = (hPlus << 1) & xv;
  }
  return false;
}

/** The best matches for `query`, most confident first. */
function matchUsers(fuse: Fuse<PdUser>, query: string): UserMatch[] {
  return fuse.search(query, { limit: MAX_MATCHES }).map((result) => ({
    user: result.item,
    confidence: Math.round((1 - (result.score ?? 1)) * 100) / 100,
  }));
}

/** Fuzzy matches among a handful of users (e.g. what a server-side name query returned). */
export function matchAmong(users: PdUser[], query: string): UserMatch[] {
  return matchUsers(new Fuse(users, FUSE_OPTIONS), query);
}

/** The best match when it is confident enough and clearly ahead of the runner-up. */
export function acceptedMatch(matches: readonly UserMatch[]): UserMatch | undefined {
  const [best, runnerUp] = matches;
  if (!best || best.confidence < ACCEPT_CONFIDENCE) return undefined;
  // Confidences are rounded to hundredths; the epsilon keeps 0.95 − 0.90 from falling short of 0.05.
  if (runnerUp && best.confidence - runnerUp.confidence < ACCEPT_MARGIN - 1e-9) return undefined;
  return best;
}
