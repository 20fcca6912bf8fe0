import { setTimeout as sleep } from "node:timers/promises";
import { type Logger, ToolError } from "@toolkits/core";
import { isStale, type OAuthGrant } from "./grant.js";
import { type OAuthProviderId, PROVIDERS } from "./providers.js";
import { available, type GrantStore, LOCK_POLL_MS, REFRESH_LOCK_MS } from "./store.js";

/**
 * Brings a stale grant up to date: `undefined` when the grant is gone meanwhile.
 * @throws GrantRefused when the provider will not renew it; ToolError `upstream_unavailable` or
 *   `upstream_error` when the provider cannot be reached or fails; `unavailable` when the store
 *   is out of reach or another holder keeps the lock too long.
 */
export type Refresh = (
  store: GrantStore<OAuthProviderId>,
  provider: OAuthProviderId,
  label: string,
) => Promise<OAuthGrant | undefined>;

/**
 * The one refresh path, for the account `label` at a provider. Concurrent calls of this process for
 * one store and account share a single flight; the flight takes the store's lock on that account,
 * reads the grant again (another process may just have
 * refreshed it), refreshes it only if it is still stale, and saves it. Without the lock it waits
 * for the holder to finish, reading again, for at most 30 s.
 */
export function refresher(logger: Logger): Refresh {
  const flights = new Map<string, Promise<OAuthGrant | undefined>>();
  return (store, provider, label) => {
    const key = `${store.id}\n${provider}\n${label}`;
    let flight = flights.get(key);
    if (!flight) {
      flight = underLock(store, provider, label, logger).finally(() => flights.delete(key));
      flights.set(key, flight);
    }
    return flight;
  };
}

async function underLock(
  store: GrantStore<OAuthProviderId>,
  provider: OAuthProviderId,
  label: string,
  logger: Logger,
): Promise<OAuthGrant | undefined> {
  const deadline = Date.now() + REFRESH_LOCK_MS;
  do {
    const release = await available(() => store.lock(provider, label, REFRESH_LOCK_MS));
    try {
      const current = await available(() => store.get(provider, label));
      if (!current || !isStale(current, Date.now())) return current;
      if (release) return await renew(store, current, logger);
    } finally {
      // A release that fails leaves the lock to expire on its own: the refresh itself is done.
      await release?.().catch(() => {});
    }
    await sleep(LOCK_POLL_MS);
  } while (Date.now() < deadline);
  throw new ToolError(
    "unavailable",
    `Refreshing the ${PROVIDERS[provider].title} connection took too long; retry shortly.`,
  );
}

async function renew(
  store: GrantStore<OAuthProviderId>,
  current: OAuthGrant,
  logger: Logger,
): Promise<OAuthGrant> {
  // The OAuth library loads only when a token needs refreshing, not at every server start.
  const { refreshGrant } = await import("./renew.js");
  const renewed = await refreshGrant(current);
  await available(() => store.save(renewed));
  logger.info(`refreshed the ${PROVIDERS[current.provider].title} sign-in`, {
    provider: current.provider,
    label: current.label,
    expires_at: renewed.expiresAt === undefined ? undefined : new Date(renewed.expiresAt).toISOString(),
    refresh_token_rotated: renewed.refreshToken !== current.refreshToken,
  });
  return renewed;
}
