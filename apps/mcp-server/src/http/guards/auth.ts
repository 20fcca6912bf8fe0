import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type AuthInfo,
  bearerAuthChallengeResponse,
  OAuthError,
  OAuthErrorCode,
} from "@modelcontextprotocol/server";
import { ANONYMOUS, type Caller } from "../../scope.js";
import type { View } from "../../views.js";
import { within } from "../auth/builtin.js";
import { principalOf } from "../auth/config.js";
import { TokensUncheckable } from "../auth/unavailable.js";
import { authenticate, type TokenVerifier } from "../auth/verify.js";
import { rpcError, sendResponse } from "../respond.js";

/** A request's authenticated caller, and the token facts the SDK's handlers are given. */
export interface Authenticated {
  caller: Caller;
  authInfo?: AuthInfo;
  /** What the token narrows the caller to (its scopes); undefined: the server's whole selection. */
  view?: View;
}

/** What the front door checks. */
export interface AuthPolicy {
  /** Checks the tokens accepted; undefined means no authentication (loopback only). */
  verifier: TokenVerifier | undefined;
  /**
   * Where a 401 points clients for the protected-resource metadata; undefined when there is no
   * authorization server (static tokens only), so clients are not sent looking for one.
   */
  resourceMetadataUrl: string | undefined;
  /**
   * The MCP URL this door guards (`<public URL>/mcp` or a connector URL). A token bound to a
   * resource (RFC 8707) is served there and beneath it only, where a connector URL narrows it.
   */
  resource?: string;
  /** Per-user serving: every caller must be a person. */
  perUser: boolean;
  /** The view a verified token narrows its caller to, when it does (the built-in server's scopes). */
  viewOf?: (authInfo: AuthInfo) => View | undefined;
}

/**
 * The one place that decides who is calling: a static token or a JWT from the `Authorization`
 * header, answered 401 with a challenge when missing or invalid, 503 with `Retry-After` while tokens
 * cannot be checked (the JWKS or the store out of reach), and (per user) 403 when the token names nobody. Resolves to the caller,
 * or undefined once it has answered.
 */
export function authGuard(
  policy: AuthPolicy,
): (req: IncomingMessage, res: ServerResponse) => Promise<Authenticated | undefined> {
  const { verifier, resourceMetadataUrl } = policy;
  return async (req, res) => {
    if (!verifier) return { caller: ANONYMOUS };
    let authInfo: AuthInfo;
    try {
      authInfo = await authenticate(req.headers.authorization, verifier, resourceMetadataUrl);
      const bound = authInfo.resource?.href;
      if (bound && policy.resource && !within(policy.resource, bound))
        throw new OAuthError(
          OAuthErrorCode.InvalidToken,
          `Access token rejected: it was issued for ${bound}`,
        );
    } catch (error) {
      if (error instanceof TokensUncheckable)
        rpcError(res, 503, error.message, { "retry-after": String(error.retryAfterSeconds) });
      else await sendResponse(res, bearerAuthChallengeResponse(error, { resourceMetadataUrl }));
      return undefined;
    }
    const principal = principalOf(authInfo);
    if (policy.perUser && !principal) {
      const message =
        "This server acts for each person separately, but your access token names nobody (it has no subject).";
      rpcError(res, 403, message);
      return undefined;
    }
    const key = createHash("sha256").update(authInfo.token).digest("base64url");
    return {
      caller: { principal, clientId: authInfo.clientId, key },
      authInfo,
      view: policy.viewOf?.(authInfo),
    };
  };
}
