/**
 * Short-lived state a toolkit keeps between requests (a file picker's session, say). A server
 * running as several replicas gives every one the same store, so any replica can serve the next
 * request; values are JSON and may be encrypted at rest by the host, so they may hold credentials.
 */
export interface StateStore {
  /** The value under `key`, or `undefined` when there is none or it expired. */
  get<T = unknown>(key: string): Promise<T | undefined>;
  /** Stores `value` (JSON) under `key` for `ttlMs` milliseconds, replacing any value there. */
  set(key: string, value: unknown, ttlMs: number): Promise<void>;
  /** Removes `key`; resolves to whether it held a live value. */
  delete(key: string): Promise<boolean>;
}

/** Oldest entries are dropped past this many, so abandoned sessions cannot pile up. */
const MAX_MEMORY_ENTRIES = 10_000;

/**
 * A StateStore in this process's memory, for a single process (the default): entries expire after
 * their time to live and the oldest go first past 10,000.
 */
export function memoryState(now: () => number = Date.now): StateStore {
  const entries = new Map<string, { json: string; expiresAt: number }>();
  /** The entry under `key` while it lives; an expired one is dropped on sight. */
  const live = (key: string) => {
    const entry = entries.get(key);
    if (!entry || entry.expiresAt > now()) return entry;
    entries.delete(key);
    return undefined;
  };
  return {
    get: async <T>(key: string) => {
      const entry = live(key);
      return entry && (JSON.parse(entry.json) as T);
    },
    set: async (key, value, ttlMs) => {
      entries.delete(key);
      // Maps iterate in insertion order, so the first key is the oldest.
      const oldest = entries.keys().next();
      if (entries.size >= MAX_MEMORY_ENTRIES && !oldest.done) entries.delete(oldest.value);
      entries.set(key, { json: JSON.stringify(value), expiresAt: now() + ttlMs });
    },
    delete: async (key) => live(key) !== undefined && entries.delete(key),
  };
}
