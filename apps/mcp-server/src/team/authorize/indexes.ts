import type { Logger } from "@toolkits/core";
import type { TeamStore } from "../store/index.js";
import { AS_PREFIX, CLIENTS_INDEX, UNUSED_CLIENT_TTL_MS } from "./adapter.js";
import { APPROVAL_TTL_MS, AUTHORISED_PREFIX, personIndex } from "./consent.js";

/** Marks a store whose records from before the indexes were indexed: the walk below runs once. */
const INDEXED = `${AS_PREFIX}indexed`;
/** How long one replica may take indexing, in milliseconds; the others start meanwhile. */
const INDEXING_LOCK_MS = 5 * 60_000;

/**
 * Indexes what a store written before the indexes holds: every registered client (counted against
 * the cap) and every person's authorised clients (listed at /connect). This walks the store once,
 * on the first start of a version with indexes, by one replica (the others go on meanwhile: until
 * it ends, old records are missing from the count and the lists, never wrong); from then on every
 * lookup is by index. Resolves when done or left to another replica.
 * @throws StoreUnavailable when the store is out of reach.
 */
export async function indexEarlierRecords(store: TeamStore, logger: Logger): Promise<void> {
  if (await store.has(INDEXED)) return;
  const release = await store.tryLock(`${INDEXED}:lock`, INDEXING_LOCK_MS);
  if (!release) return;
  try {
    const clients = await store.keys(`${AS_PREFIX}Client:`);
    for (const key of clients)
      await store.index(CLIENTS_INDEX).add(key.slice(`${AS_PREFIX}Client:`.length), UNUSED_CLIENT_TTL_MS);
    const authorised = await store.keys(AUTHORISED_PREFIX);
    for (const key of authorised) {
      const [personHash = "", clientHash = ""] = key.slice(AUTHORISED_PREFIX.length).split(":");
      await store.index(personIndex(personHash)).add(clientHash, APPROVAL_TTL_MS);
    }
    await store.set(INDEXED, { at: Date.now() });
    if (clients.length || authorised.length)
      logger.info("indexed the authorization server's earlier records", {
        clients: clients.length,
        authorised_clients: authorised.length,
      });
  } finally {
    await release().catch(() => {});
  }
}
