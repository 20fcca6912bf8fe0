import type { Logger } from "@toolkits/core";
import { AS_PREFIX, clientGrants, personAsSessions, personGrants, type Stored } from "./authorize/adapter.js";
import { AUTHORISED_PREFIX } from "./authorize/consent.js";
import { personSessions, SESSION_TTL_MS, type SessionRecord } from "./connect/session.js";
import { PEOPLE_INDEX, PERSON_TTL_MS, type PersonRecord, personKey } from "./people.js";
import { hashKey, once, type TeamStore } from "./store/index.js";

/** Marks a store whose records from before the indexes of people were indexed: the walk runs once. */
const INDEXED = "tk:indexed:people";

/**
 * Indexes what a store written before the indexes of people holds, so `admin` lists everyone and
 * `admin revoke` finds everything: people with connections, sessions or authorised clients, and
 * each person's sessions and grants (and each client's grants). This walks the store once, on the
 * first start of a version with these indexes, by one replica (the others go on meanwhile); from
 * then on every lookup is by index. @throws StoreUnavailable
 */
export const indexPeople = (store: TeamStore, logger: Logger): Promise<void> =>
  once(store, INDEXED, async () => {
    const people = store.index(PEOPLE_INDEX);
    const hashesAfter = async (prefix: string) =>
      (await store.keys(prefix)).map((key) => key.slice(prefix.length).split(":")[0] ?? "");
    for (const hash of [...(await hashesAfter("tk:conn:")), ...(await hashesAfter(AUTHORISED_PREFIX))])
      await people.add(hash, PERSON_TTL_MS);
    for (const key of await store.keys("tk:signed-in:")) {
      const session = await store.get<SessionRecord>(key);
      if (!session) continue;
      const hash = hashKey(session.principal);
      await store.index(personSessions(hash)).add(key.slice("tk:signed-in:".length), SESSION_TTL_MS);
      if (!(await store.has(personKey(hash)))) {
        const record: PersonRecord = { principal: session.principal, display: session.display };
        await store.set(personKey(hash), record, PERSON_TTL_MS);
      }
      await people.add(hash, PERSON_TTL_MS);
    }
    const grants = await indexArtifacts(store, "Grant", (hash, payload, ttlMs) => [
      ...(payload.accountId ? [store.index(personGrants(hashKey(payload.accountId))).add(hash, ttlMs)] : []),
      ...(payload.clientId ? [store.index(clientGrants(hashKey(payload.clientId))).add(hash, ttlMs)] : []),
    ]);
    const sessions = await indexArtifacts(store, "Session", (hash, payload, ttlMs) =>
      payload.accountId ? [store.index(personAsSessions(hashKey(payload.accountId))).add(hash, ttlMs)] : [],
    );
    if (grants || sessions) logger.info("indexed the earlier records of people", { grants, sessions });
  });

/** Opens every record of the authorization server's `model` and indexes it; resolves to how many. */
async function indexArtifacts(
  store: TeamStore,
  model: string,
  index: (hash: string, payload: Stored["payload"], ttlMs: number) => Promise<void>[],
): Promise<number> {
  const prefix = `${AS_PREFIX}${model}:`;
  const keys = await store.keys(prefix);
  for (const key of keys) {
    const stored = await store.get<Stored>(key);
    if (!stored) continue;
    const ttlMs = stored.expiresAt === undefined ? PERSON_TTL_MS : stored.expiresAt - Date.now();
    if (ttlMs > 0) await Promise.all(index(key.slice(prefix.length), stored.payload, ttlMs));
  }
  return keys.length;
}
