import { endEach, hashKey, type TeamStore } from "../store/index.js";

/** What oidc-provider stores of one artifact (a code, a grant, a refresh token, a session, …). */
type Payload = Record<string, unknown> & {
  grantId?: string;
  uid?: string;
  consumed?: number;
  /** Of a grant or a session: the person (their principal). */
  accountId?: string;
  clientId?: string;
  /** Epoch seconds of the first save. */
  iat?: number;
};

/** A stored artifact: its payload and when it expires (epoch milliseconds; none for ever). */
export interface Stored {
  payload: Payload;
  expiresAt?: number;
}

/** Registered clients unused for this long expire, in milliseconds (90 days). */
export const UNUSED_CLIENT_TTL_MS = 90 * 24 * 3_600_000;
/** A registered client's expiry is pushed back at most this often, in milliseconds (a day). */
const CLIENT_TOUCH_MS = 24 * 3_600_000;

/** Where the built-in authorization server keeps its records: `tk:as:<model>:<hash(id)>`. */
export const AS_PREFIX = "tk:as:";
/** The index of registered clients (members: the hashes of their ids), counted against the cap. */
export const CLIENTS_INDEX = `${AS_PREFIX}clients`;
/** The index of a person's grants (members: the hashes of the grant ids), by the person's hash. */
export const personGrants = (personHash: string): string => `${AS_PREFIX}person-grants:${personHash}`;
/** The index of a client's grants (members: the hashes of the grant ids), by the client's hash. */
export const clientGrants = (clientHash: string): string => `${AS_PREFIX}client-grants:${clientHash}`;
/** The index of a person's sessions here (members: the hashes of the session ids), by the person's hash. */
export const personAsSessions = (personHash: string): string => `${AS_PREFIX}person-sessions:${personHash}`;

export const recordKey = (model: string, id: string): string => `${AS_PREFIX}${model}:${hashKey(id)}`;
const uidIndex = (uid: string) => `${AS_PREFIX}Session-uid:${hashKey(uid)}`;
/** The grant's record by the hash of its id, as access tokens carry it (GRANT_CLAIM). */
export const grantKey = (grantHash: string): string => `${AS_PREFIX}Grant:${grantHash}`;
/**
 * The mark that a grant was checked lately (see `revalidate.ts`): while it lives, the front door's
 * one existence check of it says the grant is alive. It goes whenever its grant goes.
 */
export const checkedKey = (grantHash: string): string => `${AS_PREFIX}checked:${grantHash}`;

/** The value of an access token's grant claim (`GRANT_CLAIM`) for a token of `grantId`. */
export const grantClaim = (grantId: string): string => hashKey(grantId);

/** How the adapter treats what it stores. */
export interface AdapterPolicy {
  /** The library's own `invalid_grant` error, for a code or refresh token used twice. */
  invalidGrant(message: string): Error;
  /**
   * How long a rotated refresh token may be presented again, in milliseconds: clients that refresh
   * concurrently (Gemini CLI sends several refreshes at once) each get a sibling under the grant.
   */
  refreshGraceMs: number;
}

/**
 * oidc-provider's storage adapter over the team store, so every replica serves every step: each
 * artifact sealed under `tk:as:<model>:<hash(id)>` (ids are codes and tokens: only their hashes
 * appear in key names), one index per session uid, one of registered clients, and of each person's
 * grants and sessions and each client's grants (so `admin revoke` and `remove-client` find them).
 * A grant's codes and tokens live only while its record does (the library checks the grant on every
 * exchange, the front door on every request), so revoking a grant removes that one record (and its
 * mark of a recent check, see revalidate.ts).
 * `consumed` is claimed once across replicas: of two concurrent exchanges of one code only one wins;
 * the other is refused as a reused code is (`invalid_grant`). A refresh token presented again within
 * `refreshGraceMs` of its rotation counts as not yet used, so the library issues a sibling; after
 * that, the library's reuse detection revokes the grant.
 * Dynamically registered clients expire after 90 days unused.
 * Every method rejects with StoreUnavailable when the store is out of reach.
 */
export function storeAdapter(store: TeamStore, policy: AdapterPolicy) {
  const clients = store.index(CLIENTS_INDEX);
  /** Whether a refresh token used at `consumed` (epoch seconds) may still be presented again. */
  const inGrace = (consumed: number) => Date.now() - consumed * 1000 < policy.refreshGraceMs;
  return class StoreAdapter {
    constructor(readonly model: string) {}

    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      const ttlMs = expiresIn ? expiresIn * 1000 : this.model === "Client" ? UNUSED_CLIENT_TTL_MS : undefined;
      const expiresAt = ttlMs === undefined ? undefined : Date.now() + ttlMs;
      await store.set(recordKey(this.model, id), { payload, expiresAt } satisfies Stored, ttlMs);
      if (this.model === "Session" && payload.uid) await store.set(uidIndex(payload.uid), id, ttlMs);
      if (this.model === "Client") await clients.add(hashKey(id), ttlMs ?? UNUSED_CLIENT_TTL_MS);
      await indexByPerson(store, this.model, id, payload, ttlMs ?? UNUSED_CLIENT_TTL_MS);
    }

    async find(id: string): Promise<Payload | undefined> {
      const stored = await store.get<Stored>(recordKey(this.model, id));
      if (stored && this.model === "Client") await touch(store, recordKey(this.model, id), stored, id);
      const consumed = stored?.payload.consumed;
      if (this.model === "RefreshToken" && consumed !== undefined && inGrace(consumed))
        return { ...stored?.payload, consumed: undefined };
      return stored?.payload;
    }

    async findByUid(uid: string): Promise<Payload | undefined> {
      const id = await store.get<string>(uidIndex(uid));
      return id === undefined ? undefined : this.find(id);
    }

    findByUserCode(): Promise<undefined> {
      return Promise.resolve(undefined);
    }

    async consume(id: string): Promise<void> {
      const key = recordKey(this.model, id);
      const stored = await store.get<Stored>(key);
      if (!stored) return;
      const rotating = this.model === "RefreshToken";
      if (rotating && stored.payload.consumed !== undefined && inGrace(stored.payload.consumed)) return;
      const left = stored.expiresAt === undefined ? undefined : Math.max(1, stored.expiresAt - Date.now());
      if (!(await store.tryLock(`${key}:consumed`, left ?? UNUSED_CLIENT_TTL_MS))) {
        // Another replica is rotating this very refresh token right now: that is the concurrent
        // refresh the grace is for, so this one gets a sibling too.
        if (rotating && policy.refreshGraceMs > 0) return;
        throw policy.invalidGrant("the code or token was already used");
      }
      stored.payload.consumed = Math.floor(Date.now() / 1000);
      await store.set(key, stored, left);
    }

    async destroy(id: string): Promise<void> {
      if (this.model === "Grant") return void (await endGrant(store, hashKey(id)));
      await store.delete(recordKey(this.model, id));
      if (this.model === "Client") await clients.remove(hashKey(id));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await revokeGrant(store, grantId);
    }
  };
}

/**
 * A grant's and a session's person, and a grant's client, are indexed, so what belongs to one person
 * (or client) is ended without walking the store. Members live as long as their record; a member
 * whose record went earlier names nothing, and ending it does nothing.
 */
async function indexByPerson(store: TeamStore, model: string, id: string, payload: Payload, ttlMs: number) {
  const person = payload.accountId;
  if (model === "Session" && person)
    await store.index(personAsSessions(hashKey(person))).add(hashKey(id), ttlMs);
  if (model !== "Grant") return;
  if (person) await store.index(personGrants(hashKey(person))).add(hashKey(id), ttlMs);
  if (payload.clientId) await store.index(clientGrants(hashKey(payload.clientId))).add(hashKey(id), ttlMs);
}

/** Ends a grant: its codes and tokens are refused from the next request on (see `storeAdapter`). */
export async function revokeGrant(store: TeamStore, grantId: string): Promise<void> {
  await endGrant(store, hashKey(grantId));
}

/**
 * Ends the grant whose id hashes to `grantHash` (its GRANT_CLAIM): its record, then its mark of a
 * recent check, in that order (see `revalidate.ts`). Resolves to whether it was alive.
 */
export async function endGrant(store: TeamStore, grantHash: string): Promise<boolean> {
  const existed = await store.delete(grantKey(grantHash));
  await store.delete(checkedKey(grantHash));
  return existed;
}

/**
 * Whether the grant an access token names (its GRANT_CLAIM) is still alive: one existence check,
 * nothing opened. @throws StoreUnavailable when the store is out of reach.
 */
export const grantAlive = (store: TeamStore, grantHash: string): Promise<boolean> =>
  store.has(grantKey(grantHash));

/** Ends every grant of the person whose hash is `personHash`. Resolves to how many were alive. */
export const endPersonGrants = (store: TeamStore, personHash: string): Promise<number> =>
  endEach(store, personGrants(personHash), (grantHash) => endGrant(store, grantHash));

/** Ends every grant to the client whose hash is `clientHash`. Resolves to how many were alive. */
export const endClientGrants = (store: TeamStore, clientHash: string): Promise<number> =>
  endEach(store, clientGrants(clientHash), (grantHash) => endGrant(store, grantHash));

/**
 * Ends this server's own sessions of the person whose hash is `personHash` (every browser they
 * signed in with here). Resolves to how many there were.
 */
export const endPersonAsSessions = (store: TeamStore, personHash: string): Promise<number> =>
  endEach(store, personAsSessions(personHash), (hash) => store.delete(`${AS_PREFIX}Session:${hash}`));

/** Pushes a registered client's expiry back, at most once a day: it is in use. */
async function touch(store: TeamStore, key: string, stored: Stored, id: string): Promise<void> {
  const expiresAt = stored.expiresAt ?? 0;
  if (expiresAt - Date.now() > UNUSED_CLIENT_TTL_MS - CLIENT_TOUCH_MS) return;
  await store.set(key, { ...stored, expiresAt: Date.now() + UNUSED_CLIENT_TTL_MS }, UNUSED_CLIENT_TTL_MS);
  await store.index(CLIENTS_INDEX).add(hashKey(id), UNUSED_CLIENT_TTL_MS);
}
