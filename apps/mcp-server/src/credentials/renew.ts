import { ToolError } from "@toolkits/core";
import * as oauth from "openid-client";
import { GrantRefused, type OAuthGrant } from "./grant.js";
import { configurationFor, describeOAuthError, grantFrom } from "./oauth.js";
import { PROVIDERS } from "./providers.js";

/** OAuth error codes after which only a new sign-in helps. */
const SIGN_IN_AGAIN = new Set(["invalid_grant", "invalid_client", "unauthorized_client"]);

/**
 * Trades the grant's refresh token for a new access token at the server and with the client that
 * issued it (RFC 6749 §6, the token endpoint).
 * @throws GrantRefused when there is no refresh token, or it was revoked or expired (or the OAuth
 *   client is gone); ToolError `upstream_unavailable` when the server cannot be reached;
 *   `upstream_error` for any other refusal.
 */
export async function refreshGrant(grant: OAuthGrant): Promise<OAuthGrant> {
  if (!grant.refreshToken) throw new GrantRefused("has expired and holds no refresh token");
  const config = configurationFor(grant.server, grant.client);
  try {
    return grantFrom(await oauth.refreshTokenGrant(config, grant.refreshToken.reveal()), grant);
  } catch (error) {
    throw refreshFailure(grant, error);
  }
}

function refreshFailure(grant: OAuthGrant, error: unknown): Error {
  const title = PROVIDERS[grant.provider].title;
  if (error instanceof oauth.ResponseBodyError) {
    const answer = `${grant.server.issuer} answered ${describeOAuthError(error)}`;
    if (SIGN_IN_AGAIN.has(error.error)) return new GrantRefused(`could not be refreshed: ${answer}`);
    return new ToolError("upstream_error", `Refreshing the ${title} sign-in failed: ${answer}.`, {
      status: error.status,
      cause: error,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ToolError(
    "upstream_unavailable",
    `Could not reach ${grant.server.issuer} to refresh the ${title} sign-in: ${message}`,
    { cause: error },
  );
}

/**
 * Revokes the grant at its server when the server has a revocation endpoint (RFC 7009); revoking
 * the refresh token ends the whole grant at servers that support it.
 * @returns whether a revocation was sent and accepted.
 * @throws Error when the server refuses or cannot be reached.
 */
export async function revokeGrant(grant: OAuthGrant): Promise<boolean> {
  if (!grant.server.revocation_endpoint) return false;
  const config = configurationFor(grant.server, grant.client);
  const token = grant.refreshToken ?? grant.accessToken;
  const hint = grant.refreshToken ? "refresh_token" : "access_token";
  await oauth.tokenRevocation(config, token.reveal(), { token_type_hint: hint });
  return true;
}
