import type { ProgressUpdate } from "@toolkits/core";
import Fuse, { type IFuseOptions } from "fuse.js";
import { MAX_OFFSET_PLUS_LIMIT, MAX_PAGE_SIZE, type PagerClient } from "./client.js";
import type { PdUser } from "./types.js";

/** A match is accepted only at or above this confidence… */
export const ACCEPT_CONFIDENCE = 0.9;
/** …and at least this far ahead of the runner-up. */
export const ACCEPT_MARGIN = 0.05;
/** At most this many matches are returned. */
export const MAX_MATCHES = 10;
/** How long a scanned directory is reused for the same credential, in milliseconds. */
export const DIRECTORY_TTL_MS = 5 * 60_000;
/** Directory pages fetched at once. */
export const SCAN_CONCURRENCY = 8;

const MAX_CACHED_DIRECTORIES = 16;
const FUSE_OPTIONS: IFuseOptions<PdUser> = {
  keys: ["name", "email"],
  includeScore: true,
  ignoreLocation: true,
  // Fuse scores 0 (exact) to 1; 0.4 keeps matches of confidence 0.6 and up.
  threshold: 0.4,
};

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
  fuse: Fuse<PdUser>;
}

interface CacheEntry {
  expires: number;
  directory: Promise<UserDirectory>;
}

// Keyed by the client's credential hash, so one credential never sees another's directory and no
// raw credential is kept.
const directories = new Map<string, CacheEntry>();

/** Forgets every cached directory, e.g. after users were added or removed. */
export function forgetUserDirectories(): void {
  directories.clear();
}

/** The cached directory for the client's credential, if it is still fresh. */
export function cachedDirectory(client: PagerClient, now = Date.now()): Promise<UserDirectory> | undefined {
  const key = client.credentialKey;
  const entry = directories.get(key);
  if (entry && entry.expires > now) return entry.directory;
  directories.delete(key);
  return undefined;
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
  // Maps iterate in insertion order, so the first keys are the oldest.
  const excess = directories.size + 1 - MAX_CACHED_DIRECTORIES;
  for (const old of [...directories.keys()].slice(0, Math.max(0, excess))) directories.delete(old);
  const key = client.credentialKey;
  directories.set(key, { expires: Date.now() + DIRECTORY_TTL_MS, directory });
  directory.catch(() => directories.delete(key));
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
  return { users, complete: state.complete, fuse: new Fuse(users, FUSE_OPTIONS) };
}

/** The best matches for `query`, most confident first. */
export function matchUsers(fuse: Fuse<PdUser>, query: string): UserMatch[] {
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
