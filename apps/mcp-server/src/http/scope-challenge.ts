import {
  type AuthInfo,
  bearerAuthChallengeResponse,
  OAuthError,
  OAuthErrorCode,
  type ScopeChallenge,
} from "@modelcontextprotocol/server";
import type { InboundBody, ToolRegistry } from "@toolkits/core/mcp";
import type { Authenticated } from "./guards/auth.js";

/**
 * The one place that decides whether a request goes beyond its token's scopes, before either the
 * fast path or the SDK sees it: a `tools/call` (alone or in a batch) of a tool the server serves
 * whose scopes (`needsOf`, by canonical name) the token lacks. Answered 403 with `WWW-Authenticate:
 * Bearer error="insufficient_scope", scope="…", resource_metadata="…"` (as the SDK writes it), the
 * scope naming the token's scopes and the missing ones together, so a client asking for exactly
 * these (the 2025-11-25 step-up) keeps what it had. Only tokens whose scopes narrow their view
 * (`extra.scoped`) are challenged; undefined lets the request through.
 */
export function scopeRefusal(
  whole: ToolRegistry,
  needsOf: (name: string) => readonly string[] | undefined,
  metadataUrlOf: (path: string) => string | undefined,
): (inbound: InboundBody, who: Authenticated, path: string) => Response | undefined {
  const find = scopeChallenge(whole, needsOf);
  return (inbound, who, path) => {
    const challenge = find(inbound, who.authInfo);
    if (!challenge) return undefined;
    const error = new OAuthError(OAuthErrorCode.InsufficientScope, challenge.errorDescription ?? "");
    const resourceMetadataUrl = metadataUrlOf(path);
    return bearerAuthChallengeResponse(error, { requiredScopes: [...challenge.scopes], resourceMetadataUrl });
  };
}

/** The challenge `body` needs with `authInfo`'s scopes, if any (see `scopeRefusal`). */
function scopeChallenge(
  whole: ToolRegistry,
  needsOf: (name: string) => readonly string[] | undefined,
): (inbound: InboundBody, authInfo: AuthInfo | undefined) => ScopeChallenge | undefined {
  return (inbound, authInfo) => {
    if (!authInfo?.extra?.scoped) return undefined;
    const held = new Set(authInfo.scopes);
    for (const { call } of inbound.messages) {
      const canonical = call?.canonical;
      if (canonical === undefined || whole.inputSchema(canonical) === undefined) continue;
      const missing = (needsOf(canonical) ?? []).filter((scope) => !held.has(scope));
      if (!missing.length) continue;
      const scopes = [...held, ...missing] as [string, ...string[]];
      return {
        scopes,
        errorDescription: `${whole.names.served(canonical)} needs the scopes ${missing.join(" ")}`,
      };
    }
    return undefined;
  };
}
