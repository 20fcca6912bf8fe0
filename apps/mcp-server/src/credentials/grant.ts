import { Secret } from "@toolkits/core";
import type { AuthorizationServer, OAuthProviderId, ProviderId } from "./providers.js";

/** The endpoints a grant goes back to: its issuer, to refresh it, to revoke it. */
export type GrantServer = Pick<AuthorizationServer, "issuer" | "token_endpoint" | "revocation_endpoint">;

/** What every grant records besides its credential. */
interface GrantBase {
  /** When the account was connected (signed in to), epoch milliseconds. */
  connectedAt: number;
  /** Who the upstream says this is, for pages ("alice@example.com"); never a credential. */
  account?: string;
  /**
   * Which of the person's accounts at this provider it is (`work`, `eu`; see labels.ts). Always set
   * on a grant a store returns; a new grant saved without one is named by its store from `account`.
   */
  label?: string;
}

/**
 * An OAuth grant: tokens, their expiry and scopes, and the server and client that issued them (a
 * refresh token is bound to both, so a refresh goes back to them). Credentials are wrapped so they
 * never print.
 */
export interface OAuthGrant extends GrantBase {
  provider: OAuthProviderId;
  accessToken: Secret;
  refreshToken: Secret | undefined;
  /** When the access token expires, epoch milliseconds; `undefined` when the server did not say. */
  expiresAt: number | undefined;
  scopes: string[];
  tokenType: string;
  server: GrantServer;
  client: { id: string; secret: Secret | undefined };
}

/** The marketing grant: the person's App API key and the region of its workspace. */
export interface KeyGrant extends GrantBase {
  provider: "marketing";
  apiKey: Secret;
  region: "us" | "eu" | undefined;
}

/** One upstream connection. */
export type Grant = OAuthGrant | KeyGrant;
export type GrantOf<P extends ProviderId> = P extends "marketing" ? KeyGrant : OAuthGrant;

/**
 * A grant as plain JSON, credentials in the clear, for a store to write: the team store keeps
 * exactly this (less the client secret, which it takes from the configuration); the token file
 * renames it to its version-1 fields.
 */
export interface GrantRecord {
  provider: ProviderId;
  connectedAt: number;
  account?: string;
  /** Absent in records written before accounts had labels: the store supplies one. */
  label?: string;
  accessToken?: string;
  refreshToken?: string;
  expiresAt?: number;
  scopes?: string[];
  tokenType?: string;
  server?: GrantServer;
  clientId?: string;
  clientSecret?: string;
  apiKey?: string;
  region?: "us" | "eu";
}

/** The grant a record describes, its credentials wrapped (which also registers them for redaction). */
export function grantOf(record: GrantRecord): Grant {
  const { provider, accessToken, refreshToken, clientId, clientSecret, apiKey, region, ...rest } = record;
  const secret = (what: string, value: string) => new Secret(`${provider.toUpperCase()}_${what}`, value);
  const base = {
    connectedAt: rest.connectedAt,
    ...(rest.account ? { account: rest.account } : {}),
    ...(rest.label ? { label: rest.label } : {}),
  };
  if (provider === "marketing") return { ...base, provider, apiKey: secret("API_KEY", apiKey ?? ""), region };
  return {
    ...base,
    provider,
    accessToken: secret("ACCESS_TOKEN", accessToken ?? ""),
    refreshToken: refreshToken ? secret("REFRESH_TOKEN", refreshToken) : undefined,
    expiresAt: rest.expiresAt,
    scopes: rest.scopes ?? [],
    tokenType: rest.tokenType ?? "Bearer",
    server: rest.server ?? { issuer: "", token_endpoint: "" },
    client: {
      id: clientId ?? "",
      secret: clientSecret ? secret("OAUTH_CLIENT_SECRET", clientSecret) : undefined,
    },
  };
}

/** The record of a grant, for a store to write. */
export function recordOf(grant: Grant): GrantRecord {
  if (grant.provider === "marketing") {
    const { apiKey, ...rest } = grant;
    return { ...rest, apiKey: apiKey.reveal() };
  }
  const { accessToken, refreshToken, client, ...rest } = grant;
  return {
    ...rest,
    accessToken: accessToken.reveal(),
    refreshToken: refreshToken?.reveal(),
    clientId: client.id,
    clientSecret: client.secret?.reveal(),
  };
}

/** An access token is refreshed when it has less than this left, in milliseconds. */
export const REFRESH_MARGIN_MS = 60_000;

/** Whether a grant's access token is expired or about to be at `now` (epoch ms). */
export function isStale(grant: OAuthGrant, now: number): boolean {
  return grant.expiresAt !== undefined && grant.expiresAt - now < REFRESH_MARGIN_MS;
}

/**
 * The provider will not renew the grant: only a new sign-in helps. The message completes "The
 * grant …": "has expired and holds no refresh token", "could not be refreshed: … answered …".
 */
export class GrantRefused extends Error {}
