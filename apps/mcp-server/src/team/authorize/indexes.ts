import type { Logger } from "@toolkits/core";
import { once, type TeamStore } from "../store/index.js";
import { AS_PREFIX, CLIENTS_INDEX, UNUSED_CLIENT_TTL_MS } from "./adapter.js";
import { APPROVAL_TTL_MS, AUTHORISED_PREFIX, personIndex } from "./consent.js";

/** Marks a store whose records from before the indexes were indexed: the walk below runs once. */
const INDEXED = `${AS_PREFIX}indexed`;

/**
 * Indexes what a store written before the indexes holds: every registered client (counted against
 * the cap) and every person's authorised clients (listed at /connect). This walks the store once,
 * on the first start of a version with indexes, by one replica (the others go on meanwhile: until
 * it ends, old records are missing from the count and the lists, never wrong); from then on every
 * lookup is by index. Resolves when done or left to another replica.
 * @throws StoreUnavailable when the store is out of reach.
 */
export const indexEarlierRecords = (store: TeamStore, logger: Logger): Promise<void> =>
  once(store, INDEXED, async () => {
    const clients = await store.keys(`${AS_PREFIX}Client:`);
    for (const key of clients)
      await store.index(CLIENTS_INDEX).add(key.slice(`${AS_PREFIX}Client:`.length), UNUSED_CLIENT_TTL_MS);
    const authorised = await store.keys(AUTHORISED_PREFIX);
    for (const key of authorised) {
      const [personHash = "", clientHash = ""] = key.slice(AUTHORISED_PREFIX.length).split(":");
      await store.index(personIndex(personHash)).add(clientHash, APPROVAL_TTL_MS);
    }
    if (clients.length || authorised.length)
      logger.info("indexed the authorization server's earlier records", {
        clients: clients.length,
        authorised_clients: authorised.length,
      });
  });
