import { type Logger, redact } from "@toolkits/core";
import * as oauth from "openid-client";
import { discover, type OAuthClient } from "../credentials/oauth.js";
import { PERSON_TTL_MS, personKey } from "./people.js";
import { hashKey, type TeamStore } from "./store/index.js";

/**
 * A person's standing at the team's identity provider: the refresh token it granted at their
 * latest sign-in at /connect (sealed like every record), and when it last confirmed them
 * (`tk:person:<hash>:identity`). The built-in authorization server asks again with it (see
 * `authorize/revalidate.ts`) to learn that someone left.
 */
export interface IdentityRecord {
  refreshToken: string;
  /** Epoch milliseconds of the sign-in or the last confirmation. */
  checkedAt: number;
}

export const identityKey = (personHash: string): string => `${personKey(personHash)}:identity`;

/** Keeps the refresh token the identity provider granted `principal` at sign-in. @throws StoreUnavailable */
export async function keepIdentity(store: TeamStore, principal: string, refreshToken: string): Promise<void> {
  const record: IdentityRecord = { refreshToken, checkedAt: Date.now() };
  await store.set(identityKey(hashKey(principal)), record, PERSON_TTL_MS);
}

/**
 * What the identity provider said of a person's refresh token: still good (and perhaps rotated),
 * `refused` (the account is disabled or the token revoked: `invalid_grant`), or `unreachable`
 * (any other failure: the provider is down, or answered something else), which ends nothing.
 */
export type IdentityAnswer = { refreshToken?: string } | "refused" | "unreachable";

/** Asks the identity provider about one refresh token. */
export type IdentityCheck = (refreshToken: string) => Promise<IdentityAnswer>;

/**
 * Asks `issuer` (discovered once, again after a failure) with this server's sign-in `client` by
 * refreshing the token (RFC 6749 §6). Failures other than a refusal are logged, never with a token.
 */
export function identityCheck(issuer: string, client: OAuthClient, logger: Logger): IdentityCheck {
  let configuration: Promise<oauth.Configuration> | undefined;
  return async (refreshToken) => {
    try {
      configuration ??= discover(issuer, client).catch((error: unknown) => {
        configuration = undefined;
        throw error;
      });
      const tokens = await oauth.refreshTokenGrant(await configuration, refreshToken);
      return { refreshToken: tokens.refresh_token };
    } catch (error) {
      if (error instanceof oauth.ResponseBodyError && error.error === "invalid_grant") return "refused";
      const reason = error instanceof oauth.ResponseBodyError ? error.error : redact(String(error));
      logger.warn(
        "could not ask the identity provider whether a person may still sign in; asking again later",
        {
          issuer,
          reason,
        },
      );
      return "unreachable";
    }
  };
}
