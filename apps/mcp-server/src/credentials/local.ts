import { type Logger, type TokenProvider, ToolError } from "@toolkits/core";
import type { AccountChoice } from "./labels.js";
import { type Advice, accessTokens } from "./lookup.js";
import { isOAuthProvider, type OAuthProviderId } from "./providers.js";
import { refresher } from "./refresh.js";
import type { GrantStore } from "./store.js";
import type { TokenFile } from "./token-file.js";

/**
 * The `login` mode's answers: no grant leaves the host's advice, unless an account was chosen by its
 * label (then no other credential may stand in for it); anything else says to sign in again.
 */
const SIGN_IN_ADVICE: Advice<undefined> = {
  missing: async (provider, label) => {
    if (label === undefined) return undefined;
    throw new ToolError(
      "unauthenticated",
      `No ${provider.title} account labelled “${label}” is signed in. Run \`toolkits-mcp login ${provider.id} --label ${label}\`, then retry.`,
      { retryable: false },
    );
  },
  refused: async (provider, why) => ({
    message: `The stored ${provider.title} sign-in ${why}. Run \`toolkits-mcp login ${provider.id}\` again, then retry.`,
  }),
  lacksScopes: async (provider, missing) => ({
    message: `The stored ${provider.title} sign-in was not granted ${missing.join(", ")}. Run \`toolkits-mcp login ${provider.id}\` again and allow every requested permission.`,
  }),
};

/**
 * Access tokens from the token file `toolkits-mcp login` writes, refreshed before they expire, of
 * the accounts `choice` names (each provider's default account otherwise). See `tokensFrom`.
 */
export function storedTokens(store: TokenFile, logger: Logger): (choice: AccountChoice) => TokenProvider {
  const lookup = tokensFrom(store, logger);
  return (choice) => (provider, scopes) =>
    lookup(provider, scopes, isOAuthProvider(provider) ? choice[provider] : undefined);
}

/**
 * Access tokens from `store` of the account `label` (the provider's default account when
 * undefined), refreshed shortly before they expire (once for concurrent callers, under the store's
 * lock, the refreshed grant saved). Resolves to `undefined` for a provider with no grant and no
 * label chosen, or one that is not an OAuth provider (the host then says how to configure one).
 * @throws ToolError `unauthenticated` naming the label when the chosen account is not signed in,
 *   saying to run `toolkits-mcp login` again when the grant cannot be refreshed, or naming the file
 *   when it is unreadable; `forbidden` when the grant lacks a scope the tool needs;
 *   `upstream_unavailable` when the provider cannot be reached to refresh.
 */
export function tokensFrom(
  store: GrantStore<OAuthProviderId>,
  logger: Logger,
): (provider: string, scopes: readonly string[], label?: string) => Promise<string | undefined> {
  const lookup = accessTokens(store, SIGN_IN_ADVICE, refresher(logger));
  return async (provider, scopes, label) =>
    isOAuthProvider(provider) ? (await lookup(provider, scopes, label))?.token : undefined;
}
