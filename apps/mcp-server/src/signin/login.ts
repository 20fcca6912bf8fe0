import { redact, Secret } from "@toolkits/core";
import * as oauth from "openid-client";
import { TOOLKITS } from "../toolkits.js";
import { listenForCallback } from "./loopback.js";
import {
  configurationFor,
  describeOAuthError,
  discover,
  type OAuthClient,
  serverOf,
  signInFrom,
} from "./oauth.js";
import { clientSettings, type Provider } from "./providers.js";
import type { SignIn, TokenStore } from "./store.js";

/** How long `login` waits for the browser by default, in milliseconds. */
export const LOGIN_TIMEOUT_MS = 5 * 60_000;

export interface LoginOptions {
  /** Try to open the URL in a browser (it is printed either way). */
  openBrowser: boolean;
  /** Loopback port for the redirect URI; 0 picks a free one. */
  port: number;
  /** How long to wait for the browser, in milliseconds. */
  timeoutMs: number;
  /** Where the URL goes (stderr for the CLI). */
  print(text: string): void;
}

/**
 * Signs in to `provider` with the authorization-code flow and PKCE (S256) through a loopback
 * redirect, and saves the tokens in `store`. Asks for the scopes the composed tools need.
 * @throws Error when the client settings are missing, the user or server refuses, or the browser
 *   does not come back within the timeout; the message says what to do.
 */
export async function login(
  provider: Provider,
  env: NodeJS.ProcessEnv,
  store: TokenStore,
  options: LoginOptions,
): Promise<SignIn> {
  const settings = clientSettings(provider, env);
  const client: OAuthClient = {
    id: settings.clientId,
    secret:
      settings.clientSecret === undefined
        ? undefined
        : new Secret(`${provider.envPrefix}_OAUTH_CLIENT_SECRET`, settings.clientSecret),
  };
  const config = settings.issuer
    ? await discover(settings.issuer, client)
    : configurationFor(provider.server(env), client);
  const scopes = provider.scopes(Object.values(TOOLKITS).flatMap((kit) => kit.tools));
  const verifier = oauth.randomPKCECodeVerifier();
  const state = oauth.randomState();
  const loopback = await listenForCallback({ port: options.port, state, timeoutMs: options.timeoutMs });
  try {
    const url = oauth.buildAuthorizationUrl(config, {
      redirect_uri: loopback.redirectUri,
      scope: scopes.join(" "),
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      state,
      ...provider.authorizationParameters,
    });
    options.print(`Open this URL in a browser to sign in to ${provider.title}:\n\n  ${url.href}\n\n`);
    if (options.openBrowser) await openBrowser(url.href);
    const arrival = await loopback.arrival;
    try {
      const response = await oauth.authorizationCodeGrant(config, arrival.url, {
        pkceCodeVerifier: verifier,
        expectedState: state,
      });
      const signIn = signInFrom(provider, response, { server: serverOf(config), client, scopes });
      await store.put(provider.id, signIn);
      arrival.answer({ ok: true, message: `Signed in to ${provider.title}.` });
      return signIn;
    } catch (error) {
      const message = failure(provider, error);
      arrival.answer({ ok: false, message });
      throw new Error(message, { cause: error });
    }
  } finally {
    loopback.close();
  }
}

/** Opens the URL where there is a browser; silently does nothing where there is none. */
async function openBrowser(url: string): Promise<void> {
  try {
    const { default: open } = await import("open");
    await open(url);
  } catch {
    // The URL is already printed; a headless machine is not an error.
  }
}

function failure(provider: Provider, error: unknown): string {
  if (error instanceof oauth.AuthorizationResponseError) {
    return redact(`${provider.title} did not authorize the sign-in: ${describeOAuthError(error)}.`);
  }
  if (error instanceof oauth.ResponseBodyError) {
    return redact(`${provider.title} refused to issue tokens: ${describeOAuthError(error)}.`);
  }
  return redact(
    `Signing in to ${provider.title} failed: ${error instanceof Error ? error.message : String(error)}`,
  );
}
