import type { KeyObject } from "node:crypto";
import { type AuthInfo, OAuthError, OAuthErrorCode } from "@modelcontextprotocol/server";
import { jwtVerify } from "jose";

/** The built-in authorization server (`--authorization-server builtin`) as the front door sees it. */
export interface BuiltinIssuer {
  /** Its issuer: the server's public URL, without a trailing slash. */
  issuer: string;
  /**
   * The MCP URL (RFC 8707 `resource`). Its access tokens name it or a connector URL beneath it
   * (`<MCP URL>/<selection>`) as their audience.
   */
  audience: string;
  /** The public key named `kid`; undefined for a key it never had. */
  key(kid: string): KeyObject | undefined | Promise<KeyObject | undefined>;
  /**
   * Whether the grant a token names (its `gid` claim) is alive: revoking it (at /connect, by an
   * operator, by a refresh token's reuse, by the identity provider's refusal of its person when they
   * are checked there again) ends its tokens at once, not when they expire.
   * @throws TokensUncheckable when the store is out of reach.
   */
  grantAlive(claim: string): Promise<boolean>;
}

/**
 * Clock difference tolerated on the built-in server's own tokens, in seconds: its replicas share
 * one clock source, so less than for another issuer's.
 */
const OWN_CLOCK_SKEW_SECONDS = 15;

/** Verifies the built-in server's access tokens. */
export interface BuiltinTokens {
  /** Whether `token` claims to be from this issuer (read unverified; `verify` checks it). */
  claims(token: string): boolean;
  /**
   * Checks an access token (RFC 9068 `at+jwt`, RS256): signature by a key of the server, issuer,
   * audience (the MCP URL or a connector URL beneath it), expiry, the `sub` and `client_id` claims,
   * and that its grant (`gid`) is still alive. Resolves to what the SDK's handlers are given: `resource` is the token's audience (the
   * front door serves it only there and beneath), `extra.principal` the person (`sub`), and
   * `extra.scoped` marks the token's `scopes` as what narrows its view.
   * @throws OAuthError (`invalid_token`) for any failure, saying which; TokensUncheckable when the
   *   grant cannot be looked up now.
   */
  verify(token: string): Promise<AuthInfo>;
}

/** The verifier of `issuer`'s tokens: a signature check and a few claims, no request anywhere. */
export function builtinTokens(issuer: BuiltinIssuer, reject: (error: unknown) => OAuthError): BuiltinTokens {
  const claimed = `"iss":${JSON.stringify(issuer.issuer)}`;
  return {
    claims(token) {
      const payload = token.split(".", 3)[1];
      return payload !== undefined && Buffer.from(payload, "base64url").toString("utf8").includes(claimed);
    },
    async verify(token) {
      const { payload } = await jwtVerify(
        token,
        async ({ kid }) => {
          const key = kid === undefined ? undefined : await issuer.key(kid);
          if (!key) throw new OAuthError(OAuthErrorCode.InvalidToken, "Access token rejected: unknown key");
          return key;
        },
        {
          issuer: issuer.issuer,
          typ: "at+jwt",
          algorithms: ["RS256"],
          requiredClaims: ["exp", "sub", "client_id", GRANT_CLAIM],
          clockTolerance: OWN_CLOCK_SKEW_SECONDS,
        },
      ).catch((error: unknown) => {
        throw error instanceof OAuthError ? error : reject(error);
      });
      const audience = payload.aud;
      if (typeof audience !== "string" || !within(audience, issuer.audience))
        throw new OAuthError(
          OAuthErrorCode.InvalidToken,
          "Access token rejected: issued for another resource (aud)",
        );
      if (!(await issuer.grantAlive(String(payload[GRANT_CLAIM]))))
        throw new OAuthError(
          OAuthErrorCode.InvalidToken,
          "Access token rejected: its authorization was revoked (sign in again)",
        );
      const scope = typeof payload.scope === "string" ? payload.scope : "";
      return {
        token,
        clientId: String(payload.client_id),
        scopes: scope.split(" ").filter(Boolean),
        expiresAt: (payload.exp ?? 0) + OWN_CLOCK_SKEW_SECONDS,
        resource: new URL(audience),
        extra: { principal: payload.sub, scoped: true },
      };
    },
  };
}

/**
 * The access-token claim naming its grant, which every request checks is alive: the hash of the
 * grant's id (its record's key in the store), never the id.
 */
export const GRANT_CLAIM = "gid";

/** Whether `url` is `base` or a path beneath it. */
export const within = (url: string, base: string): boolean => url === base || url.startsWith(`${base}/`);
