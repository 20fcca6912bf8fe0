import type { Logger, TokenProvider } from "@toolkits/core";
import { type Advice, accessTokens } from "./lookup.js";
import { isOAuthProvider, type OAuthProviderId } from "./providers.js";
import { refresher } from "./refresh.js";
import type { GrantStore } from "./store.js";
import { TokenFile } from "./token-file.js";

/** The `login` mode's answers: no grant leaves the host's advice; anything else says to sign in again. */
const SIGN_IN_ADVICE: Advice<undefined> = {
  missing: async () => undefined,
  refused: async (provider, why) => ({
    message: `The stored ${provider.title} sign-in ${why}. Run \`toolkits-mcp login ${provider.id}\` again, then retry.`,
  }),
  lacksScopes: async (provider, missing) => ({
    message: `The stored ${provider.title} sign-in was not granted ${missing.join(", ")}. Run \`toolkits-mcp login ${provider.id}\` again and allow every requested permission.`,
  }),
};

/**
 * Access tokens from the token file `toolkits-mcp login` writes (`tokenFile`, its path), refreshed
 * before they expire. See `tokensFrom`.
 */
export function storedTokens(tokenFile: string, logger: Logger): TokenProvider {
  return tokensFrom(new TokenFile(tokenFile), logger);
}

/**
 * Access tokens from `store`, refreshed shortly before they expire (once for concurrent callers,
 * under the store's lock, the refreshed grant saved). Resolves to `undefined` for a provider with
 * no grant, or one that is not an OAuth provider (the host then says how to configure one).
 * @throws ToolError `unauthenticated` saying to run `toolkits-mcp login` again when the grant
 *   cannot be refreshed, or naming the file when it is unreadable; `forbidden` when the grant lacks
 *   a scope the tool needs; `upstream_unavailable` when the provider cannot be reached to refresh.
 */
export function tokensFrom(store: GrantStore<OAuthProviderId>, logger: Logger): TokenProvider {
  const lookup = accessTokens(store, SIGN_IN_ADVICE, refresher(logger));
  return async (provider, scopes) => (isOAuthProvider(provider) ? lookup(provider, scopes) : undefined);
}
