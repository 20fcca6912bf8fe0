import { createHash, timingSafeEqual } from "node:crypto";
import {
  type AuthInfo,
  OAuthError,
  OAuthErrorCode,
  type OAuthTokenVerifier,
} from "@modelcontextprotocol/server";
import { createRemoteJWKSet, errors as joseErrors, jwtVerify } from "jose";

/** How HTTP callers authenticate, from `MCP_HTTP_BEARER_TOKENS` and `MCP_OAUTH_*`. */
export interface HttpAuthConfig {
  /** Static bearer tokens; any one is accepted. */
  staticTokens: string[];
  /** OAuth access tokens verified as JWTs against the issuer's JWKS, for this audience. */
  oauth?: { issuer: string; audience: string; jwksUrl: string };
}

/** Reads the auth configuration; undefined when none is set. */
export function authConfigFromEnv(env: NodeJS.ProcessEnv = process.env): HttpAuthConfig | undefined {
  const staticTokens = (env.MCP_HTTP_BEARER_TOKENS ?? "")
    .split(",")
    .map((token) => token.trim())
    .filter(Boolean);
  const { MCP_OAUTH_ISSUER: issuer, MCP_OAUTH_AUDIENCE: audience, MCP_OAUTH_JWKS_URL: jwksUrl } = env;
  const anyOauth = issuer || audience || jwksUrl;
  if (anyOauth && !(issuer && audience && jwksUrl)) {
    throw new Error("OAuth needs all of MCP_OAUTH_ISSUER, MCP_OAUTH_AUDIENCE and MCP_OAUTH_JWKS_URL.");
  }
  const oauth = issuer && audience && jwksUrl ? { issuer, audience, jwksUrl } : undefined;
  return staticTokens.length || oauth ? { staticTokens, oauth } : undefined;
}

const digest = (value: string): Buffer => createHash("sha256").update(value).digest();
/** Static tokens never expire on their own; the SDK still wants a time (seconds). */
const STATIC_EXPIRY_SECONDS = 4_102_444_800;

/**
 * Verifies bearer tokens: static tokens by constant-time comparison of their SHA-256 digests,
 * then JWTs by signature (JWKS), issuer, audience and expiry.
 */
export function tokenVerifier(config: HttpAuthConfig): OAuthTokenVerifier {
  const known = config.staticTokens.map(digest);
  const jwks = config.oauth ? createRemoteJWKSet(new URL(config.oauth.jwksUrl)) : undefined;
  return {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      const presented = digest(token);
      if (known.some((candidate) => timingSafeEqual(candidate, presented))) {
        return { token, clientId: "static-token", scopes: [], expiresAt: STATIC_EXPIRY_SECONDS };
      }
      if (!jwks || !config.oauth) throw new OAuthError(OAuthErrorCode.InvalidToken, "Unknown bearer token");
      try {
        const { payload } = await jwtVerify(token, jwks, {
          issuer: config.oauth.issuer,
          audience: config.oauth.audience,
        });
        const scope = typeof payload.scope === "string" ? payload.scope : "";
        return {
          token,
          clientId: String(payload.client_id ?? payload.azp ?? payload.sub ?? "unknown"),
          scopes: scope.split(" ").filter(Boolean),
          expiresAt: payload.exp ?? 0,
        };
      } catch (error) {
        const reason = error instanceof joseErrors.JOSEError ? error.code : "invalid token";
        throw new OAuthError(OAuthErrorCode.InvalidToken, `Access token rejected (${reason})`);
      }
    },
  };
}
