import type { PagerClient } from "./client.js";
import type { UserDirectory } from "./directory.js";

// The search's limits and its cache of scanned directories, apart from the fuzzy matching
// (directory.ts): the toolkit's definitions and exports need only these, so loading the toolkit
// does not load Fuse, which Pager.SearchUsers imports on its first call.

/** A match is accepted only at or above this confidence… */
export const ACCEPT_CONFIDENCE = 0.9;
/** …and at least this far ahead of the runner-up. */
export const ACCEPT_MARGIN = 0.05;
/** At most this many matches are returned. */
export const MAX_MATCHES = 10;
/** How long a scanned directory is reused for the same credential, in milliseconds. */
export const DIRECTORY_TTL_MS = 5 * 60_000;

const MAX_CACHED_DIRECTORIES = 16;

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
 * Caches `directory` for the client's credential for `DIRECTORY_TTL_MS`, dropping the oldest
 * entries past 16 credentials; a directory that fails is dropped when it does.
 */
export function cacheDirectory(client: PagerClient, directory: Promise<UserDirectory>): void {
  // Maps iterate in insertion order, so the first keys are the oldest.
  const excess = directories.size + 1 - MAX_CACHED_DIRECTORIES;
  for (const old of [...directories.keys()].slice(0, Math.max(0, excess))) directories.delete(old);
  const key = client.credentialKey;
  directories.set(key, { expires: Date.now() + DIRECTORY_TTL_MS, directory });
  directory.catch(() => directories.delete(key));
}
