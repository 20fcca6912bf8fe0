import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type JsonWebKey,
  type KeyObject,
  randomBytes,
} from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { StoreUnavailable, type TeamStore } from "../store/index.js";

/** A private signing key as a JWK (RS256), named by its `kid`. */
export type SigningJwk = JsonWebKey & { kid: string; alg: "RS256"; use: "sig" };

/**
 * The built-in authorization server's keys, one record in the store (sealed like every other),
 * shared by every replica: the keys signing access tokens and the keys signing its cookies.
 */
export interface ServerKeys {
  /** Current first: it signs; the one before still verifies (tokens and cookies it signed live on). */
  signing: SigningJwk[];
  /** Cookie signing keys (base64url), current first. */
  cookies: string[];
  /** When the current keys were made (epoch milliseconds). */
  madeAt: number;
}

const KEYS = "tk:as:keys";
/** Keys are replaced after this long, in milliseconds (90 days); the previous ones still verify. */
export const KEY_LIFETIME_MS = 90 * 24 * 3_600_000;
/** How long one replica may take to make the keys, in milliseconds. */
const KEYS_LOCK_MS = 10_000;

/**
 * The keys in the store, made on the first start and replaced once KEY_LIFETIME_MS old (keeping the
 * previous ones to verify), under the store's lock so replicas starting together agree.
 * @throws StoreUnavailable when the store is out of reach or another replica holds the lock too long.
 */
export async function serverKeys(store: TeamStore, now = Date.now()): Promise<ServerKeys> {
  const deadline = Date.now() + 2 * KEYS_LOCK_MS;
  while (Date.now() < deadline) {
    const current = await store.get<ServerKeys>(KEYS);
    if (current && now - current.madeAt < KEY_LIFETIME_MS) return current;
    const release = await store.tryLock(`${KEYS}:lock`, KEYS_LOCK_MS);
    if (!release) {
      await sleep(100);
      continue;
    }
    try {
      const again = await store.get<ServerKeys>(KEYS);
      if (again && now - again.madeAt < KEY_LIFETIME_MS) return again;
      const made: ServerKeys = {
        signing: [newSigningKey(), ...(again?.signing.slice(0, 1) ?? [])],
        cookies: [randomBytes(32).toString("base64url"), ...(again?.cookies.slice(0, 1) ?? [])],
        madeAt: now,
      };
      await store.set(KEYS, made);
      return made;
    } finally {
      await release().catch(() => {});
    }
  }
  throw new StoreUnavailable("the authorization server's keys were being made elsewhere for too long");
}

/** The public keys that verify access tokens, by `kid`. */
export function verificationKeys(keys: ServerKeys): Map<string, KeyObject> {
  return new Map(
    keys.signing.map((jwk) => [jwk.kid, createPublicKey(createPrivateKey({ key: jwk, format: "jwk" }))]),
  );
}

/**
 * Reads the keys again (another replica may have replaced them), for a verifier meeting a `kid`
 * it does not know. Resolves to the keys' record; undefined when there is none yet.
 */
export const storedKeys = (store: TeamStore): Promise<ServerKeys | undefined> => store.get<ServerKeys>(KEYS);

function newSigningKey(): SigningJwk {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const jwk = privateKey.export({ format: "jwk" });
  return { ...jwk, kid: randomBytes(9).toString("base64url"), alg: "RS256", use: "sig" };
}
