import { Secret, ToolError } from "@toolkits/core";
import { refresh } from "../signin/oauth.js";
import { PROVIDERS } from "../signin/providers.js";
import type { SignIn } from "../signin/store.js";
import { isStale } from "../signin/tokens.js";
import { type Connection, type Connections, PROVIDER_TITLES, type ProviderId } from "./connections.js";
import { hashKey, StoreUnavailable, type TeamStore } from "./store/index.js";

/** How long one replica may hold a refresh lock, in milliseconds; a crashed holder frees it after this. */
const REFRESH_LOCK_MS = 30_000;
/** How often a caller waiting for another replica's refresh looks again, in milliseconds. */
const REFRESH_POLL_MS = 100;

/**
 * One person's upstream credentials: their connections, refreshed before they expire, once per
 * person and provider across every replica (a lock in the store); a connection that is missing, or
 * whose refresh the provider refuses, answers with a fresh connect link.
 */
export interface PersonCredentials {
  /**
   * The person's access token for an OAuth provider.
   * @throws ToolError `unauthenticated` with a connect link; `unavailable` when the store is out of
   *   reach; `upstream_unavailable` when the provider cannot be reached to refresh.
   */
  accessToken(provider: "pager" | "google", scopes: readonly string[]): Promise<string>;
  /** The person's marketing App API key and region. @throws as `accessToken`. */
  marketingKey(): Promise<{ key: string; region: "us" | "eu" | undefined }>;
}

/** Credentials of every person, from `connections` in `store`; OAuth client secrets from `env`. */
export function teamCredentials(
  store: TeamStore,
  connections: Connections,
  env: NodeJS.ProcessEnv,
): (principal: string) => PersonCredentials {
  // Calls on this replica that need the same refresh share it; other replicas wait on the lock.
  const refreshing = new Map<string, Promise<Connection>>();
  const fresh = (principal: string, current: Connection): Promise<Connection> => {
    const key = `${principal}\n${current.provider}`;
    let flight = refreshing.get(key);
    if (!flight) {
      flight = refreshOnce(store, connections, env, principal, current).finally(() => refreshing.delete(key));
      refreshing.set(key, flight);
    }
    return flight;
  };
  return (principal) => ({
    async accessToken(provider, scopes) {
      let connection = await connected(connections, principal, provider);
      if (isStale(signInOf(connection, env), Date.now())) connection = await fresh(principal, connection);
      const granted = connection.scopes ?? [];
      if (!PROVIDERS[provider]?.covers(granted, scopes)) {
        throw await connectFirst(
          connections,
          principal,
          provider,
          "does not grant every permission this tool needs",
        );
      }
      return revealed(provider, connection.accessToken);
    },
    async marketingKey() {
      const connection = await connected(connections, principal, "marketing");
      return { key: revealed("marketing", connection.apiKey), region: connection.region };
    },
  });
}

/** The person's connection to `provider`. @throws ToolError with a connect link when there is none. */
async function connected(
  connections: Connections,
  principal: string,
  provider: ProviderId,
): Promise<Connection> {
  const connection = await available(() => connections.get(principal, provider));
  if (connection) return connection;
  throw await connectFirst(connections, principal, provider, "is not connected yet");
}

/** Wraps the value so redaction knows it, and returns it for the request header. */
function revealed(provider: ProviderId, value: string | undefined): string {
  if (!value)
    throw new ToolError(
      "unauthenticated",
      `The stored ${PROVIDER_TITLES[provider]} connection is incomplete.`,
    );
  return new Secret(`${provider.toUpperCase()}_CREDENTIAL`, value).reveal();
}

/**
 * Refreshes under the store's lock. Whoever gets the lock reads the record again (another replica
 * may just have refreshed it) and refreshes only if it is still stale; the others wait for the
 * record to change or the lock to go, then read it.
 */
async function refreshOnce(
  store: TeamStore,
  connections: Connections,
  env: NodeJS.ProcessEnv,
  principal: string,
  seen: Connection,
): Promise<Connection> {
  const lockKey = `tk:lock:refresh:${seen.provider}:${hashKey(principal)}`;
  const deadline = Date.now() + REFRESH_LOCK_MS;
  while (Date.now() < deadline) {
    const release = await available(() => store.tryLock(lockKey, REFRESH_LOCK_MS));
    const current = await connected(connections, principal, seen.provider);
    if (!isStale(signInOf(current, env), Date.now())) {
      await release?.();
      return current;
    }
    if (release) {
      try {
        return await renew(connections, env, principal, current);
      } finally {
        await release();
      }
    }
    await new Promise((resolve) => setTimeout(resolve, REFRESH_POLL_MS));
  }
  throw new ToolError(
    "unavailable",
    `Refreshing the ${PROVIDER_TITLES[seen.provider]} connection took too long; retry shortly.`,
  );
}

/** Trades the refresh token; a refusal by the provider removes the connection and asks for a new one. */
async function renew(
  connections: Connections,
  env: NodeJS.ProcessEnv,
  principal: string,
  current: Connection,
): Promise<Connection> {
  const provider = PROVIDERS[current.provider];
  if (!provider) throw new ToolError("unauthenticated", `Unknown provider ${current.provider}.`);
  let renewed: SignIn;
  try {
    renewed = await refresh(provider, signInOf(current, env));
  } catch (error) {
    if (error instanceof ToolError && error.kind === "unauthenticated") {
      await available(() => connections.remove(principal, current.provider));
      throw await connectFirst(
        connections,
        principal,
        current.provider,
        "was refused by the provider when refreshed",
      );
    }
    throw error;
  }
  const next: Connection = { ...current, ...tokensOf(renewed) };
  await available(() => connections.save(principal, next));
  return next;
}

/**
 * A connection in the shape the sign-in code refreshes and revokes. The client secret comes from
 * the environment, and only while the connection's client is still the configured one: another
 * client's tokens never travel with this one's secret.
 */
export function signInOf(connection: Connection, env: NodeJS.ProcessEnv): SignIn {
  const prefix = PROVIDERS[connection.provider]?.envPrefix ?? connection.provider.toUpperCase();
  const clientId = connection.clientId ?? "";
  const secret =
    clientId === env[`${prefix}_OAUTH_CLIENT_ID`] ? env[`${prefix}_OAUTH_CLIENT_SECRET`] : undefined;
  return {
    accessToken: new Secret(`${prefix}_ACCESS_TOKEN`, connection.accessToken ?? ""),
    refreshToken: connection.refreshToken
      ? new Secret(`${prefix}_REFRESH_TOKEN`, connection.refreshToken)
      : undefined,
    expiresAt: connection.expiresAt,
    scopes: connection.scopes ?? [],
    tokenType: connection.tokenType ?? "Bearer",
    obtainedAt: connection.connectedAt,
    server: connection.server ?? { issuer: "", token_endpoint: "" },
    client: {
      id: clientId,
      secret: secret ? new Secret(`${prefix}_OAUTH_CLIENT_SECRET`, secret) : undefined,
    },
  };
}

/** The token fields of a connection, from a sign-in the OAuth code made (a grant or a refresh). */
export function tokensOf(
  signIn: SignIn,
): Pick<Connection, "accessToken" | "refreshToken" | "expiresAt" | "scopes" | "tokenType"> {
  return {
    accessToken: signIn.accessToken.reveal(),
    refreshToken: signIn.refreshToken?.reveal(),
    expiresAt: signIn.expiresAt,
    scopes: signIn.scopes,
    tokenType: signIn.tokenType,
  };
}

/** The error asking the person to connect `provider`, with a new single-use link. */
async function connectFirst(
  connections: Connections,
  principal: string,
  provider: ProviderId,
  why: string,
): Promise<ToolError> {
  const link = await available(() => connections.link(principal, provider));
  const title = PROVIDER_TITLES[provider];
  return new ToolError(
    "unauthenticated",
    `Your ${title} account ${why}. Ask the user to open ${link.url} in a browser to connect it (the link works for 10 minutes), then call again.`,
    { retryable: false, connect: link },
  );
}

/**
 * Runs a store operation, turning an unreachable store into the error a caller should see.
 * @throws ToolError `unavailable` when the store is out of reach.
 */
export async function available<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (!(error instanceof StoreUnavailable)) throw error;
    throw new ToolError("unavailable", `${error.message} Retry in a few seconds.`, { cause: error });
  }
}
