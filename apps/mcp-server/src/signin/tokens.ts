import { type Logger, type TokenProvider, ToolError } from "@toolkits/core";
import { PROVIDERS, type Provider, signInAgain } from "./providers.js";
import { type SignIn, TokenStore, tokenFilePath } from "./store.js";

/** An access token is refreshed when it has less than this left, in milliseconds. */
export const REFRESH_MARGIN_MS = 60_000;

/** Whether a sign-in's access token is expired or about to be at `now` (epoch ms). */
export function isStale(signIn: SignIn, now: number): boolean {
  return signIn.expiresAt !== undefined && signIn.expiresAt - now < REFRESH_MARGIN_MS;
}

/**
 * Access tokens from the user's token store (`toolkits-mcp login`), refreshed before they expire.
 * See `tokensFromStore` for what it resolves to and throws.
 */
export function storedTokens(env: NodeJS.ProcessEnv, logger: Logger): TokenProvider {
  return tokensFromStore(new TokenStore(tokenFilePath(env)), logger);
}

/**
 * Access tokens from the token store, refreshed shortly before they expire. Concurrent calls for
 * one provider share a single refresh; the refreshed sign-in is saved.
 *
 * Resolves to `undefined` for a provider with no stored sign-in (the host then says how to
 * configure one). Throws ToolError `unauthenticated` saying to run `toolkits-mcp login` again when
 * the sign-in cannot be refreshed, `forbidden` when it lacks a scope the tool needs, and
 * `unauthenticated` naming the file when the store is unreadable.
 */
export function tokensFromStore(store: TokenStore, logger: Logger): TokenProvider {
  const refreshing = new Map<string, Promise<SignIn>>();
  const fresh = (provider: Provider): Promise<SignIn> => {
    let flight = refreshing.get(provider.id);
    if (!flight) {
      flight = refreshAndSave(store, provider, logger).finally(() => refreshing.delete(provider.id));
      refreshing.set(provider.id, flight);
    }
    return flight;
  };
  return async (id, scopes) => {
    const provider = PROVIDERS[id];
    if (!provider) return undefined;
    let signIn = await readSignIn(store, id);
    if (!signIn) return undefined;
    if (isStale(signIn, Date.now())) signIn = await fresh(provider);
    if (!provider.covers(signIn.scopes, scopes)) {
      const missing = scopes.filter((scope) => !signIn.scopes.includes(scope));
      throw new ToolError(
        "forbidden",
        `The stored ${provider.title} sign-in was not granted ${missing.join(", ")}. Run \`toolkits-mcp login ${id}\` again and allow every requested permission.`,
        { retryable: false },
      );
    }
    return signIn.accessToken.reveal();
  };
}

async function readSignIn(store: TokenStore, provider: string): Promise<SignIn | undefined> {
  try {
    return await store.get(provider);
  } catch (error) {
    throw new ToolError("unauthenticated", (error as Error).message, { retryable: false, cause: error });
  }
}

async function refreshAndSave(store: TokenStore, provider: Provider, logger: Logger): Promise<SignIn> {
  // Read again: another process (or a `login`) may have refreshed since the caller looked.
  const current = await readSignIn(store, provider.id);
  if (!current) throw signInAgain(provider, "was removed");
  if (!isStale(current, Date.now())) return current;
  // The OAuth library loads only when a token needs refreshing, not at every server start.
  const { refresh } = await import("./oauth.js");
  const renewed = await refresh(provider, current);
  await store.put(provider.id, renewed);
  logger.info(`refreshed the ${provider.title} sign-in`, {
    provider: provider.id,
    expires_at: renewed.expiresAt === undefined ? undefined : new Date(renewed.expiresAt).toISOString(),
    refresh_token_rotated: renewed.refreshToken !== current.refreshToken,
  });
  return renewed;
}
