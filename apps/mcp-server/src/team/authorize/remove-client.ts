import { endEach, hashKey, type TeamStore } from "../store/index.js";
import { AS_PREFIX, CLIENTS_INDEX, clientGrants, endGrant, grantKey, type Stored } from "./adapter.js";
import { authorisedKey, personIndex } from "./consent.js";

/** What removing a client ended. */
export interface RemovedClient {
  /** Whether it had registered here (dynamic registration); a metadata-document client never does. */
  registered: boolean;
  /** Its grants, each person's tokens for it. */
  grants: number;
}

/**
 * Removes the client `clientId`: every grant it holds (through the index of its grants), each
 * person's record of having authorised it (so they are asked again), and its registration. Its
 * next request gets `invalid_client` (a registered one) or a new consent (a metadata document's).
 * @throws StoreUnavailable
 */
export async function removeClient(store: TeamStore, clientId: string): Promise<RemovedClient> {
  const clientHash = hashKey(clientId);
  const grants = await endEach(store, clientGrants(clientHash), async (grantHash) => {
    const grant = await store.get<Stored>(grantKey(grantHash));
    const person = grant?.payload.accountId;
    if (person) {
      await store.delete(authorisedKey(hashKey(person), clientHash));
      await store.index(personIndex(hashKey(person))).remove(clientHash);
    }
    return endGrant(store, grantHash);
  });
  const registered = await store.delete(`${AS_PREFIX}Client:${clientHash}`);
  await store.index(CLIENTS_INDEX).remove(clientHash);
  return { registered, grants };
}
