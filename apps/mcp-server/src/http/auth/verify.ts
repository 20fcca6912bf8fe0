import {
  type AuthInfo,
  OAuthError,
  OAuthErrorCode,
  type OAuthTokenVerifier,
  verifyBearerToken,
} from "@modelcontextprotocol/server";
import type { Logger } from "@toolkits/core";
import { errors as joseErrors, jwtVerify } from "jose";
import { type BuiltinIssuer, builtinTokens } from "./builtin.js";
import { type HttpAuthConfig, staticTokenMatcher, subjectPrincipal, tokenPrincipal } from "./config.js";
import { remoteKeySet } from "./jwks.js";
import { TokensUncheckable } from "./unavailable.js";

/** Exactly `Bearer <token>`: the SDK's parser would ignore anything after the token. */
const BEARER_HEADER = /^Bearer \S+$/i;

/** Why a request without a token is refused by a server with static tokens only (no OAuth to offer). */
const BEARER_REQUIRED =
  "A bearer token is required: send 'Authorization: Bearer <token>' with a token from this server's operator (it has no OAuth sign-in)";

/**
 * Verifies an `Authorization` header through the SDK, refusing first one with anything after the
 * token. Without `resourceMetadataUrl` (no authorization server to point at), a missing header is
 * refused saying a bearer token is required.
 * @throws OAuthError for a missing, malformed or rejected token; TokensUncheckable when it cannot be checked now.
 */
export async function authenticate(
  header: string | undefined,
  verifier: OAuthTokenVerifier,
  resourceMetadataUrl: string | undefined,
): Promise<AuthInfo> {
  if (header === undefined && resourceMetadataUrl === undefined)
    throw new OAuthError(OAuthErrorCode.InvalidToken, BEARER_REQUIRED);
  if (header !== undefined && !BEARER_HEADER.test(header)) {
    throw new OAuthError(
      OAuthErrorCode.InvalidToken,
      "The Authorization header must be exactly 'Bearer <token>', with nothing after the token",
    );
  }
  return verifyBearerToken(header, { verifier, resourceMetadataUrl });
}

/** Static tokens never expire on their own; the SDK still wants a time (seconds). */
const STATIC_EXPIRY_SECONDS = 4_102_444_800;
/**
 * Clock difference tolerated between the issuer and this server, in seconds, the same for every
 * time claim: a token is accepted up to this long after its `exp`, before its `nbf`, and with an
 * `iat` this far ahead.
 */
export const CLOCK_SKEW_SECONDS = 30;

/** Verifies bearer tokens, and tells whether it can (its key set is reachable). */
export interface TokenVerifier extends OAuthTokenVerifier {
  /** Whether JWTs can be checked now: the JWKS is cached fresh or fetched within 3 s; true without OAuth. */
  ready(): Promise<boolean>;
}

/**
 * Verifies bearer tokens: static tokens by constant-time comparison of their SHA-256 digests,
 * then the built-in server's own access tokens (`builtin`: see `builtinTokens`), then JWTs by
 * signature (JWKS), issuer, audience, a required expiry and an issue time not in the future.
 * Failures to fetch the JWKS are told apart from bad tokens (see `remoteKeySet`).
 */
export function tokenVerifier(
  config: HttpAuthConfig,
  logger: Logger,
  builtin?: BuiltinIssuer,
): TokenVerifier {
  const knownToken = staticTokenMatcher(config.staticTokens);
  const own = builtin && builtinTokens(builtin, rejection);
  const keys = config.oauth && remoteKeySet(new URL(config.oauth.jwksUrl), logger);
  return {
    ready: async () => (keys ? keys.ready() : true),
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      const matched = knownToken(token);
      if (matched) {
        const { name } = matched;
        const extra = name ? { principal: tokenPrincipal(name) } : undefined;
        return { token, clientId: "static-token", scopes: [], expiresAt: STATIC_EXPIRY_SECONDS, extra };
      }
      if (own?.claims(token)) return own.verify(token);
      if (!keys || !config.oauth) throw new OAuthError(OAuthErrorCode.InvalidToken, "Unknown bearer token");
      const { payload } = await jwtVerify(token, keys, {
        issuer: config.oauth.issuer,
        audience: config.oauth.audience,
        requiredClaims: ["exp"],
        clockTolerance: CLOCK_SKEW_SECONDS,
      }).catch((error: unknown) => {
        throw error instanceof TokensUncheckable ? error : rejection(error);
      });
      if (typeof payload.iat === "number" && payload.iat > Date.now() / 1000 + CLOCK_SKEW_SECONDS) {
        throw new OAuthError(
          OAuthErrorCode.InvalidToken,
          "Access token rejected: it was issued in the future (iat); check the issuer's clock",
        );
      }
      const scope = typeof payload.scope === "string" ? payload.scope : "";
      const subject = typeof payload.sub === "string" && payload.sub ? payload.sub : undefined;
      return {
        token,
        clientId: String(payload.client_id ?? payload.azp ?? payload.sub ?? "unknown"),
        scopes: scope.split(" ").filter(Boolean),
        // The SDK refuses a token past `expiresAt`; the tolerance must reach that check too.
        expiresAt: (payload.exp ?? 0) + CLOCK_SKEW_SECONDS,
        extra: subject && payload.iss ? { principal: subjectPrincipal(payload.iss, subject) } : undefined,
      };
    },
  };
}

/** The refusal of a token jose found wrong, saying what is wrong with it. */
function rejection(error: unknown): OAuthError {
  if (error instanceof joseErrors.JWTClaimValidationFailed && error.reason === "missing") {
    return new OAuthError(
      OAuthErrorCode.InvalidToken,
      `Access token rejected: it has no ${error.claim} claim`,
    );
  }
  if (error instanceof joseErrors.JWTExpired) {
    return new OAuthError(OAuthErrorCode.InvalidToken, "Access token rejected: it has expired (exp)");
  }
  const reason = error instanceof joseErrors.JOSEError ? error.message : "invalid token";
  return new OAuthError(OAuthErrorCode.InvalidToken, `Access token rejected: ${reason}`);
}
