import type { Logger } from "@toolkits/core";
import {
  type AccountToken,
  type Advice,
  accessTokens,
  type MarketingKey,
  marketingKey,
  type Remedy,
  signInFirst,
} from "../credentials/lookup.js";
import type { Provider } from "../credentials/providers.js";
import { refresher } from "../credentials/refresh.js";
import { available } from "../credentials/store.js";
import { type Connections, minutesLeft } from "./connections.js";

/**
 * One person's upstream credentials: their connections, refreshed before they expire, once per
 * person and provider across every replica (a lock in the store); a connection that is missing,
 * refused by its provider or short of a scope answers with a fresh connect link.
 */
export interface PersonCredentials {
  /**
   * The person's access token for an OAuth provider, from their account `label` (their default
   * account there when undefined; never another account), with the label of the account it is.
   * @throws ToolError `unauthenticated` with a connect link when the account is not connected or
   *   its provider refused the refresh; `forbidden` with a connect link when the connection lacks a
   *   scope the tool needs; `unavailable` when the store is out of reach; `upstream_unavailable`
   *   when the provider cannot be reached to refresh.
   */
  accessToken(provider: "pager" | "google", scopes: readonly string[], label?: string): Promise<AccountToken>;
  /** The person's marketing App API key and region, from their account `label`. @throws as `accessToken`. */
  marketingKey(label?: string): Promise<MarketingKey>;
}

/** Credentials of every person, from their `connections`; refreshes are logged on `logger`. */
export function teamCredentials(
  connections: Connections,
  logger: Logger,
): (principal: string) => PersonCredentials {
  // Calls on this replica that need the same refresh share it; other replicas wait on the lock.
  const refresh = refresher(logger);
  return (principal) => {
    const grants = connections.of(principal);
    const advice = connectAdvice(connections, principal);
    return { accessToken: accessTokens(grants, advice, refresh), marketingKey: marketingKey(grants, advice) };
  };
}

/**
 * The per-user answers: a new connect link, after forgetting a grant its provider refused. A link
 * for a chosen account connects it under that label, so the same call works once it is used.
 */
function connectAdvice(connections: Connections, principal: string): Advice<never> {
  const connect = async (provider: Provider, why: string, label?: string): Promise<Remedy> => {
    const link = await available(() => connections.link(principal, provider.id, label));
    const account = label === undefined ? "account" : `account “${label}”`;
    return {
      message: `Your ${provider.title} ${account} ${why}. Ask the user to open ${link.url} in a browser to connect it (the link works for ${minutesLeft(link.expiresAt)} minutes), then call again.`,
      connect: link,
    };
  };
  return {
    missing: async (provider, label) => {
      throw signInFirst(await connect(provider, "is not connected yet", label));
    },
    refused: async (provider, _why, label) => {
      await available(() => connections.of(principal).remove(provider.id, label));
      return connect(provider, "was refused by the provider when refreshed", label);
    },
    lacksScopes: (provider, _missing, label) =>
      connect(provider, "does not grant every permission this tool needs", label),
  };
}
