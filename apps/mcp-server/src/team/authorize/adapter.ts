import { hashKey, type TeamStore } from "../store/index.js";

/** What oidc-provider stores of one artifact (a code, a grant, a refresh token, a session, …). */
type Payload = Record<string, unknown> & { grantId?: string; uid?: string; consumed?: number };

/** A stored artifact: its payload and when it expires (epoch milliseconds; none for ever). */
interface Stored {
  payload: Payload;
  expiresAt?: number;
}

/** Registered clients unused for this long expire, in milliseconds (90 days). */
export const UNUSED_CLIENT_TTL_MS = 90 * 24 * 3_600_000;
/** A registered client's expiry is pushed back at most this often, in milliseconds (a day). */
const CLIENT_TOUCH_MS = 24 * 3_600_000;

/** Where the built-in authorization server keeps its records: `tk:as:<model>:<hash(id)>`. */
export const AS_PREFIX = "tk:as:";

const recordKey = (model: string, id: string) => `${AS_PREFIX}${model}:${hashKey(id)}`;
const grantIndex = (grantId: string) => `${AS_PREFIX}by-grant:${hashKey(grantId)}:`;
const uidIndex = (uid: string) => `${AS_PREFIX}Session-uid:${hashKey(uid)}`;

/**
 * oidc-provider's storage adapter over the team store, so every replica serves every step: each
 * artifact sealed under `tk:as:<model>:<hash(id)>` (ids are codes and tokens: only their hashes
 * appear in key names), an index per grant for `revokeByGrantId`, one per session uid.
 * `consumed` is claimed once across replicas: of two concurrent exchanges of one code (or one
 * refresh token) only one wins; the other is refused as a reused code is (`invalid_grant`).
 * Dynamically registered clients expire after 90 days unused.
 * Every method rejects with StoreUnavailable when the store is out of reach.
 */
export function storeAdapter(store: TeamStore, invalidGrant: (message: string) => Error) {
  return class StoreAdapter {
    constructor(readonly model: string) {}

    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      const ttlMs = expiresIn ? expiresIn * 1000 : this.model === "Client" ? UNUSED_CLIENT_TTL_MS : undefined;
      const expiresAt = ttlMs === undefined ? undefined : Date.now() + ttlMs;
      await store.set(recordKey(this.model, id), { payload, expiresAt } satisfies Stored, ttlMs);
      if (payload.grantId)
        await store.set(`${grantIndex(payload.grantId)}${this.model}:${hashKey(id)}`, true, ttlMs);
      if (this.model === "Session" && payload.uid) await store.set(uidIndex(payload.uid), id, ttlMs);
    }

    async find(id: string): Promise<Payload | undefined> {
      const stored = await store.get<Stored>(recordKey(this.model, id));
      if (stored && this.model === "Client") await touch(store, recordKey(this.model, id), stored);
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
      const left = stored.expiresAt === undefined ? undefined : Math.max(1, stored.expiresAt - Date.now());
      if (!(await store.tryLock(`${key}:consumed`, left ?? UNUSED_CLIENT_TTL_MS)))
        throw invalidGrant("the code or token was already used");
      stored.payload.consumed = Math.floor(Date.now() / 1000);
      await store.set(key, stored, left);
    }

    async destroy(id: string): Promise<void> {
      await store.delete(recordKey(this.model, id));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await revokeGrant(store, grantId);
    }
  };
}

/** Removes every artifact of `grantId` (codes, tokens, the grant itself). */
export async function revokeGrant(store: TeamStore, grantId: string): Promise<void> {
  const prefix = grantIndex(grantId);
  for (const entry of await store.keys(prefix)) {
    const [model, hash] = entry.slice(prefix.length).split(":");
    if (model && hash) await store.delete(`${AS_PREFIX}${model}:${hash}`);
    await store.delete(entry);
  }
  await store.delete(recordKey("Grant", grantId));
}

/** Pushes a registered client's expiry back, at most once a day: it is in use. */
async function touch(store: TeamStore, key: string, stored: Stored): Promise<void> {
  const expiresAt = stored.expiresAt ?? 0;
  if (expiresAt - Date.now() > UNUSED_CLIENT_TTL_MS - CLIENT_TOUCH_MS) return;
  await store.set(key, { ...stored, expiresAt: Date.now() + UNUSED_CLIENT_TTL_MS }, UNUSED_CLIENT_TTL_MS);
}
