import { hashKey, type TeamStore } from "../team/store/index.js";
import { type Grant, type GrantOf, type GrantRecord, grantOf, recordOf } from "./grant.js";
import type { OAuthClients, ProviderId } from "./providers.js";
import type { GrantStore } from "./store.js";

/** A person's grant, by the hash of their principal: the record as this store has always kept it. */
export const connectionKey = (personHash: string, provider: ProviderId): string =>
  `tk:conn:${personHash}:${provider}`;
const grantKey = (principal: string, provider: ProviderId) => connectionKey(hashKey(principal), provider);
const lockKey = (principal: string, provider: ProviderId) =>
  `tk:lock:refresh:${provider}:${hashKey(principal)}`;

/**
 * Each person's grants in the sealed team store, one record each. A client secret is never
 * stored: it is this deployment's (`clients`), and travels with a grant only while the grant's
 * client is still the configured one, so another client's tokens never go out with this one's
 * secret. Locks are the store's own, shared by every replica. Methods reject with
 * StoreUnavailable when the store is out of reach.
 */
export function teamGrants(store: TeamStore, clients: OAuthClients): (principal: string) => GrantStore {
  const opened = <P extends ProviderId>(record: GrantRecord | undefined): GrantOf<P> | undefined => {
    if (!record) return undefined;
    const client = record.provider === "marketing" ? undefined : clients[record.provider];
    const own = client?.clientId !== undefined && client.clientId === record.clientId;
    return grantOf({ ...record, clientSecret: own ? client.clientSecret : undefined }) as GrantOf<P>;
  };
  return (principal) => ({
    id: `person ${hashKey(principal)}`,
    get: async (provider) => opened(await store.get<GrantRecord>(grantKey(principal, provider))),
    save: (grant: Grant) =>
      store.set(grantKey(principal, grant.provider), { ...recordOf(grant), clientSecret: undefined }),
    remove: async (provider) => opened(await store.take<GrantRecord>(grantKey(principal, provider))),
    lock: (provider, ttlMs) => store.tryLock(lockKey(principal, provider), ttlMs),
  });
}
