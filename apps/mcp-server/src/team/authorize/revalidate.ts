import type { Logger } from "@toolkits/core";
import { type IdentityCheck, type IdentityRecord, identityKey } from "../identity.js";
import { PERSON_TTL_MS, pseudonymOf } from "../people.js";
import { hashKey, type TeamStore } from "../store/index.js";
import { checkedKey, endGrant, grantAlive, grantKey, type Stored } from "./adapter.js";

/** How people's grants are kept honest: `--revalidate-interval`, `--grant-max-age`, the identity provider. */
export interface RevalidationPolicy {
  /** How often a person is asked about again at the identity provider, in milliseconds. */
  intervalMs: number;
  /** How long a grant lives when its person has no refresh token there, in milliseconds. */
  grantMaxAgeMs: number;
  /** Asks the identity provider about a person's refresh token; undefined when sign-in is not through one. */
  identity?: IdentityCheck;
  /** Ends what a person authorised here (as `admin revoke` does, upstream connections aside). */
  offboard(principal: string): Promise<unknown>;
  logger: Logger;
}

/** How long one replica may spend asking the identity provider about one person, in milliseconds. */
const ASKING_LOCK_MS = 30_000;
/** After the identity provider could not be asked, it is asked again after this long, in milliseconds. */
const RETRY_MS = 60_000;

/** What became of a grant on a check: alive (and not to be checked again for `forMs`), or ended. */
type Verdict = { forMs: number } | { end: "grant" | "person" };

/**
 * Whether the grant an access token names (its GRANT_CLAIM) is alive, as the front door asks on
 * every request. The common case costs one existence check: the grant's mark of a recent check
 * (`tk:as:checked:<grant>`), which lives until the grant is due again and goes whenever the grant
 * goes. Without it, the grant is read and checked:
 *
 * - its person signed in at the identity provider with a refresh token: when that was confirmed
 *   longer than `intervalMs` ago, the provider is asked again (one replica per person at a time,
 *   under a lock; a rotated token is kept). A refusal (`invalid_grant`: the account is disabled, the
 *   token revoked) ends every grant of the person, their consents and sessions (`offboard`); a
 *   provider out of reach ends nothing and is asked again a minute later.
 * - otherwise (static tokens, a provider granting no refresh token) the grant ends `grantMaxAgeMs`
 *   after it was made, and the person signs in again.
 *
 * The mark is written only after the grant is read, and the grant is looked at again after, so a
 * grant ended meanwhile never keeps a mark. @throws StoreUnavailable
 */
export function grantChecker(
  store: TeamStore,
  policy: RevalidationPolicy,
): (claim: string) => Promise<boolean> {
  return async (claim) => {
    if (await store.has(checkedKey(claim))) return true;
    const grant = await store.get<Stored>(grantKey(claim));
    const principal = grant?.payload.accountId;
    if (!grant || !principal) return false;
    const verdict = await check(store, policy, principal, grant);
    if ("end" in verdict) {
      if (verdict.end === "person") await policy.offboard(principal);
      else await endGrant(store, claim);
      return false;
    }
    if (verdict.forMs <= 0) return true;
    await store.set(checkedKey(claim), 1, verdict.forMs);
    if (await grantAlive(store, claim)) return true;
    await store.delete(checkedKey(claim));
    return false;
  };
}

async function check(
  store: TeamStore,
  policy: RevalidationPolicy,
  principal: string,
  grant: Stored,
): Promise<Verdict> {
  const now = Date.now();
  const left = grant.expiresAt === undefined ? Number.POSITIVE_INFINITY : grant.expiresAt - now;
  const hash = hashKey(principal);
  const identity = policy.identity && (await store.get<IdentityRecord>(identityKey(hash)));
  if (!identity) {
    const age = now - (grant.payload.iat ?? 0) * 1000;
    if (age < policy.grantMaxAgeMs)
      return { forMs: Math.min(policy.grantMaxAgeMs - age, policy.intervalMs, left) };
    policy.logger.info(
      "grant ended: older than --grant-max-age, and its person has no refresh token at the identity provider",
      {
        principal: pseudonymOf(hash),
        client_id: grant.payload.clientId,
      },
    );
    return { end: "grant" };
  }
  const since = now - identity.checkedAt;
  if (since < policy.intervalMs) return { forMs: Math.min(policy.intervalMs - since, left) };
  return ask(store, policy, hash, left);
}

/** Asks the identity provider about the person under `hash`, once across replicas. */
async function ask(
  store: TeamStore,
  policy: RevalidationPolicy,
  hash: string,
  left: number,
): Promise<Verdict> {
  const release = await store.tryLock(`tk:lock:identity:${hash}`, ASKING_LOCK_MS);
  // Another replica is asking right now: this request goes on, and the next one looks again.
  if (!release) return { forMs: 0 };
  try {
    const identity = await store.get<IdentityRecord>(identityKey(hash));
    if (!identity) return { forMs: 0 };
    const since = Date.now() - identity.checkedAt;
    if (since < policy.intervalMs) return { forMs: Math.min(policy.intervalMs - since, left) };
    const answer = (await policy.identity?.(identity.refreshToken)) ?? "unreachable";
    if (answer === "unreachable") return { forMs: Math.min(RETRY_MS, left) };
    if (answer === "refused") {
      policy.logger.info(
        "the identity provider refused a person: their grants, consents and sessions ended",
        {
          principal: pseudonymOf(hash),
        },
      );
      return { end: "person" };
    }
    const renewed: IdentityRecord = {
      refreshToken: answer.refreshToken ?? identity.refreshToken,
      checkedAt: Date.now(),
    };
    await store.set(identityKey(hash), renewed, PERSON_TTL_MS);
    return { forMs: Math.min(policy.intervalMs, left) };
  } finally {
    await release().catch(() => {});
  }
}
