import { hashKey, type TeamStore } from "../team/store/index.js";
import { type Grant, type GrantOf, type GrantRecord, grantOf, recordOf } from "./grant.js";
import { labelCandidates, labelFor } from "./labels.js";
import type { OAuthClients, ProviderId } from "./providers.js";
import { type GrantStore, REFRESH_LOCK_MS, whileHeld, whileNotRefreshing } from "./store.js";

/**
 * A person's default account at a provider, by the hash of their principal: the key every grant was
 * kept under before accounts had labels, so a replica of an earlier version, during a rolling
 * upgrade, still finds (and refreshes, under the same lock) the account it always served.
 */
export const connectionKey = (personHash: string, provider: ProviderId): string =>
  `tk:conn:${personHash}:${provider}`;
/** Each other account, under the hash of its label (a label may be made from an e-mail address). */
const accountKey = (personHash: string, provider: ProviderId, label: string) =>
  `${connectionKey(personHash, provider)}:${hashKey(label)}`;
/** The index of a person's other accounts at a provider: their labels' hashes. */
const accountsIndex = (personHash: string, provider: ProviderId) => `tk:accounts:${personHash}:${provider}`;
/** Index members live as long as a grant may (grants themselves do not expire in the store). */
const ACCOUNT_TTL_MS = 10 * 365 * 24 * 3_600_000;
/** The refresh lock of the default account keeps its earlier key, so replicas of either version share it. */
const lockKey = (personHash: string, provider: ProviderId, label: string | undefined) =>
  `tk:lock:refresh:${provider}:${personHash}${label === undefined ? "" : `:${hashKey(label)}`}`;

/**
 * The lock on changing which accounts a person has at a provider (adding, removing, relabelling,
 * choosing the default), so two changes at once cannot both take the default slot or one label.
 */
const accountsLockKey = (personHash: string, provider: ProviderId) =>
  `tk:lock:accounts:${personHash}:${provider}`;
/** How long one holder may keep the accounts lock: a few store writes, so a crashed holder's ends soon. */
const ACCOUNTS_LOCK_MS = 10_000;

/** The label of a stored record: its own, or (a record from before labels) the one its account gives. */
const labelOfRecord = (record: GrantRecord): string =>
  record.label ?? (labelCandidates(record.account)[0] as string);

/**
 * Every account record of the person `personHash` at `provider` as stored (credentials in the
 * clear, no client secret), the default first, each with its label; for `admin`.
 * @throws StoreUnavailable
 */
export async function connectionRecords(
  store: TeamStore,
  personHash: string,
  provider: ProviderId,
): Promise<GrantRecord[]> {
  const first = await store.get<GrantRecord>(connectionKey(personHash, provider));
  const hashes = await store.index(accountsIndex(personHash, provider)).members();
  const others = await Promise.all(
    hashes.map((hash) => store.get<GrantRecord>(`${connectionKey(personHash, provider)}:${hash}`)),
  );
  const rest = others.filter((record) => record !== undefined).sort((a, b) => a.connectedAt - b.connectedAt);
  return [...(first ? [{ ...first, label: labelOfRecord(first) }] : []), ...rest];
}

/**
 * Each person's grants in the sealed team store, one record per account: the default account at
 * the key grants always had (`connectionKey`), every other under its label's hash, listed in an
 * index per person and provider. A client secret is never stored: it is this deployment's
 * (`clients`), and travels with a grant only while the grant's client is still the configured one,
 * so another client's tokens never go out with this one's secret. Locks are the store's own, shared
 * by every replica. Methods reject with StoreUnavailable when the store is out of reach.
 */
export function teamGrants(store: TeamStore, clients: OAuthClients): (principal: string) => GrantStore {
  const opened = <P extends ProviderId>(record: GrantRecord | undefined): GrantOf<P> | undefined => {
    if (!record) return undefined;
    const client = record.provider === "marketing" ? undefined : clients[record.provider];
    const own = client?.clientId !== undefined && client.clientId === record.clientId;
    const label = labelOfRecord(record);
    return grantOf({ ...record, label, clientSecret: own ? client.clientSecret : undefined }) as GrantOf<P>;
  };
  const stored = (grant: Grant, label: string): GrantRecord => ({
    ...recordOf(grant),
    label,
    clientSecret: undefined,
  });
  return (principal) => {
    const person = hashKey(principal);
    const first = (provider: ProviderId) => store.get<GrantRecord>(connectionKey(person, provider));
    const index = (provider: ProviderId) => store.index(accountsIndex(person, provider));
    const other = (provider: ProviderId, label: string) => accountKey(person, provider, label);
    /** Runs `change` holding the person's accounts lock at `provider`. */
    const exclusive = <T>(provider: ProviderId, change: () => Promise<T>) =>
      whileHeld(
        () => store.tryLock(accountsLockKey(person, provider), ACCOUNTS_LOCK_MS),
        change,
        ACCOUNTS_LOCK_MS,
      );
    /** Moves the account `record` out of the default slot into its own key. */
    const demote = async (record: GrantRecord) => {
      const label = labelOfRecord(record);
      await store.set(other(record.provider, label), { ...record, label });
      await index(record.provider).add(hashKey(label), ACCOUNT_TTL_MS);
    };
    /** Moves the account `record` from its own key into the default slot (written first: never lost). */
    const promote = async (record: GrantRecord) => {
      const label = labelOfRecord(record);
      await store.set(connectionKey(person, record.provider), record);
      await index(record.provider).remove(hashKey(label));
      await store.delete(other(record.provider, label));
    };
    const grants: GrantStore = {
      id: `person ${person}`,
      async get(provider, label) {
        if (label === undefined) return opened(await first(provider));
        const [own, byDefault] = await Promise.all([
          store.get<GrantRecord>(other(provider, label)),
          first(provider),
        ]);
        return opened(own ?? (byDefault && labelOfRecord(byDefault) === label ? byDefault : undefined));
      },
      list: async <P extends ProviderId>(provider: P) =>
        (await connectionRecords(store, person, provider)).map((record) => opened<P>(record) as GrantOf<P>),
      save: (grant) =>
        exclusive(grant.provider, async () => {
          const current = await first(grant.provider);
          const label = grant.label ?? (await freeLabel(grant));
          if (!current || labelOfRecord(current) === label) {
            await store.set(connectionKey(person, grant.provider), stored(grant, label));
            return label;
          }
          await store.set(other(grant.provider, label), stored(grant, label));
          await index(grant.provider).add(hashKey(label), ACCOUNT_TTL_MS);
          return label;
        }),
      async remove(provider, label) {
        const current = label === undefined ? await first(provider) : undefined;
        const target = label ?? (current && labelOfRecord(current));
        if (target === undefined) return undefined;
        return whileNotRefreshing(
          () => grants.lock(provider, target, REFRESH_LOCK_MS),
          () => exclusive(provider, () => removeNow(provider, target)),
        );
      },
      rename: (provider, label, to) =>
        whileNotRefreshing(
          () => grants.lock(provider, label, REFRESH_LOCK_MS),
          () => exclusive(provider, () => renameNow(provider, label, to)),
        ),
      makeDefault: (provider, label) =>
        exclusive(provider, async () => {
          const [current, chosen] = await Promise.all([
            first(provider),
            store.get<GrantRecord>(other(provider, label)),
          ]);
          if (current && labelOfRecord(current) === label) return true;
          if (!chosen) return false;
          if (current) await demote(current);
          await promote(chosen);
          return true;
        }),
      async lock(provider, label, ttlMs) {
        const current = await first(provider);
        const slot = current && labelOfRecord(current) === label ? undefined : label;
        return store.tryLock(lockKey(person, provider, slot), ttlMs);
      },
    };
    /** Removes the account `label` (its refresh lock held), promoting the next when it was the default. */
    async function removeNow<P extends ProviderId>(provider: P, label: string) {
      const current = await first(provider);
      if (current && labelOfRecord(current) === label) {
        const [, next] = await connectionRecords(store, person, provider);
        if (next) await promote(next);
        else await store.delete(connectionKey(person, provider));
        return opened<P>(current);
      }
      const removed = await store.take<GrantRecord>(other(provider, label));
      await index(provider).remove(hashKey(label));
      return opened<P>(removed);
    }
    /**
     * Relabels the account `label` (its refresh lock held): the default in its own slot, in one
     * write; another under its new label's key, written before the old key goes.
     */
    async function renameNow(provider: ProviderId, label: string, to: string): Promise<boolean> {
      const current = await first(provider);
      const records = await connectionRecords(store, person, provider);
      const record = records.find((each) => labelOfRecord(each) === label);
      if (!record || records.some((each) => labelOfRecord(each) === to)) return false;
      if (current && labelOfRecord(current) === label) {
        await store.set(connectionKey(person, provider), { ...current, label: to });
        return true;
      }
      await store.set(other(provider, to), { ...record, label: to });
      await index(provider).add(hashKey(to), ACCOUNT_TTL_MS);
      await store.delete(other(provider, label));
      await index(provider).remove(hashKey(label));
      return true;
    }
    /** The label for a grant saved without one, given the person's other accounts there. */
    async function freeLabel(grant: Grant): Promise<string> {
      const records = await connectionRecords(store, person, grant.provider);
      return labelFor(
        grant.account,
        new Map(records.map((record) => [labelOfRecord(record), record.account])),
      );
    }
    return grants;
  };
}
