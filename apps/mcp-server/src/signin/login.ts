import { redact } from "@toolkits/core";
import * as oauth from "openid-client";
import type { OAuthGrant } from "../credentials/grant.js";
import {
  authorizationUrl,
  configure,
  describeOAuthError,
  flowSecrets,
  oauthSetup,
  redeemCode,
} from "../credentials/oauth.js";
import type { OAuthClientConfig, OAuthProvider } from "../credentials/providers.js";
import type { TokenFile } from "../credentials/token-file.js";
import { TOOLKITS } from "../toolkits.js";
import { listenForCallback } from "./loopback.js";

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
  /** The label to keep the account under; unset, the store names it from the account (labels.ts). */
  label?: string;
}

/**
 * Signs in to `provider` with the authorization-code flow and PKCE (S256) through a loopback
 * redirect, as the OAuth client `client` describes, and saves the grant in `store` under
 * `options.label` (the same label replaces that account; other accounts stay). Asks for the
 * scopes the composed tools need. Resolves to the grant with the label it was saved under.
 * @throws Error when the client settings are missing, the user or server refuses, or the browser
 *   does not come back within the timeout; the message says what to do.
 */
export async function login(
  provider: OAuthProvider,
  client: OAuthClientConfig,
  store: TokenFile,
  options: LoginOptions,
): Promise<OAuthGrant> {
  const setup = oauthSetup(provider, client);
  const config = await configure(setup);
  const scopes = provider.scopes(Object.values(TOOLKITS).flatMap((kit) => kit.tools));
  const secrets = flowSecrets();
  const loopback = await listenForCallback({
    port: options.port,
    state: secrets.state,
    timeoutMs: options.timeoutMs,
  });
  try {
    const url = await authorizationUrl(config, provider, {
      ...secrets,
      redirectUri: loopback.redirectUri,
      scopes,
    });
    options.print(`Open this URL in a browser to sign in to ${provider.title}:\n\n  ${url.href}\n\n`);
    if (options.openBrowser) await openBrowser(url.href);
    const arrival = await loopback.arrival;
    try {
      const redeemed = await redeemCode(config, setup, arrival.url, { ...secrets, scopes });
      const grant = { ...redeemed, label: await store.save({ ...redeemed, label: options.label }) };
      arrival.answer({ ok: true, message: `Signed in to ${provider.title}.` });
      return grant;
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

function failure(provider: OAuthProvider, error: unknown): string {
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
