import { type ConnectLink, type Secret, ToolError } from "@toolkits/core";
import { GrantRefused, isStale, type OAuthGrant } from "./grant.js";
import { type OAuthProvider, type OAuthProviderId, PROVIDERS, type Provider } from "./providers.js";
import type { Refresh } from "./refresh.js";
import { available, type GrantStore } from "./store.js";

/** What the person is told to do, and where (a connect link) when the server can offer one. */
export interface Remedy {
  message: string;
  connect?: ConnectLink;
}

/**
 * How a mode answers for a grant it cannot use: the `login` mode says to run `toolkits-mcp login`,
 * the per-user mode gives a connect link.
 */
export interface Advice<Absent> {
  /**
   * For a provider without a grant (without the account `label`, when one was chosen): `Absent` to
   * answer, or a rejection; a chosen label's answer names it, and is never another account's.
   */
  missing(provider: Provider, label?: string): Promise<Absent>;
  /** For the grant of the account `label` the provider refused to renew; `why` completes "The grant …". */
  refused(provider: OAuthProvider, why: string, label?: string): Promise<Remedy>;
  /** For the grant of the account `label` lacking scopes a tool needs (`missing`). */
  lacksScopes(provider: OAuthProvider, missing: readonly string[], label?: string): Promise<Remedy>;
}

/** The error of a remedy that needs the person to sign in or connect (again). */
export const signInFirst = (remedy: Remedy): ToolError =>
  new ToolError("unauthenticated", remedy.message, { retryable: false, connect: remedy.connect });

/**
 * An OAuth provider's access token from the grant in `store` of the account `label` (the
 * provider's default account when undefined), refreshed shortly before it expires, for a tool that
 * declares `scopes`; `Absent` (as `advice` says) when there is no such grant.
 */
export type AccessTokens<Absent> = (
  provider: OAuthProviderId,
  scopes: readonly string[],
  label?: string,
) => Promise<AccountToken | Absent>;

/** A credential, and the label of the account it is (the default's too, when none was chosen). */
export interface AccountToken {
  token: string;
  label: string;
}

/**
 * The access-token lookup of every mode, answering as `advice` says. A missing scope answers
 * `forbidden` in every mode: the grant is valid and identifies the person, but does not allow
 * this tool (RFC 6750's `insufficient_scope`, which is HTTP 403); the remedy says how to widen it.
 * The lookup throws ToolError `unauthenticated` (with the remedy) when the grant cannot be renewed,
 * `forbidden` when it lacks a scope the tool needs, `unavailable` when the store is out of reach,
 * `upstream_unavailable` when the provider cannot be reached to refresh.
 */
export function accessTokens<Absent>(
  store: GrantStore<OAuthProviderId>,
  advice: Advice<Absent>,
  refresh: Refresh,
): AccessTokens<Absent> {
  return async (id, scopes, label) => {
    const provider = PROVIDERS[id];
    let grant = await available(() => store.get(id, label));
    if (grant && isStale(grant, Date.now())) grant = await renewed(store, advice, grant, refresh);
    if (!grant) return advice.missing(provider, label);
    const granted = grant.scopes;
    if (!provider.covers(granted, scopes)) {
      const missing = scopes.filter((scope) => !granted.includes(scope));
      const remedy = await advice.lacksScopes(provider, missing, label);
      throw new ToolError("forbidden", remedy.message, { retryable: false, connect: remedy.connect });
    }
    // A grant read from a store always has its label.
    return { token: revealed(provider, grant.accessToken), label: grant.label as string };
  };
}

/** A marketing App API key, the region of its workspace, and the label of its account. */
export interface MarketingKey {
  key: string;
  region: "us" | "eu" | undefined;
  label: string;
}

/**
 * The marketing App API key and its region from the grant in `store` of the account `label` (the
 * default account when undefined); `Absent` (as `advice` says) when there is none.
 * @throws ToolError `unavailable` when the store is out of reach.
 */
export function marketingKey<Absent>(
  store: GrantStore<"marketing">,
  advice: Advice<Absent>,
): (label?: string) => Promise<MarketingKey | Absent> {
  return async (label) => {
    const grant = await available(() => store.get("marketing", label));
    if (!grant) return advice.missing(PROVIDERS.marketing, label);
    return {
      key: revealed(PROVIDERS.marketing, grant.apiKey),
      region: grant.region,
      label: grant.label as string,
    };
  };
}

async function renewed<Absent>(
  store: GrantStore<OAuthProviderId>,
  advice: Advice<Absent>,
  stale: OAuthGrant,
  refresh: Refresh,
) {
  try {
    // A grant read from a store always has its label.
    return await refresh(store, stale.provider, stale.label as string);
  } catch (error) {
    if (!(error instanceof GrantRefused)) throw error;
    throw signInFirst(await advice.refused(PROVIDERS[stale.provider], error.message, stale.label));
  }
}

/** The credential for a request header; an empty one is a record no code here writes. */
function revealed(provider: Provider, credential: Secret): string {
  const value = credential.reveal();
  if (!value)
    throw new ToolError("unauthenticated", `The stored ${provider.title} connection is incomplete.`);
  return value;
}
