import { Secret } from "@toolkits/core";
import * as oauth from "openid-client";
import type { GrantServer, OAuthGrant } from "./grant.js";
import {
  type AuthorizationServer,
  type OAuthClientConfig,
  type OAuthProvider,
  README_SECTION,
} from "./providers.js";

/** Discovery and token-endpoint requests give up after this long, in seconds. */
const TIMEOUT_S = 20;

/** An OAuth client: its id and, for confidential clients, its secret. */
export interface OAuthClient {
  id: string;
  secret: Secret | undefined;
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** Plain HTTP is refused except on this machine, where test and development servers live. */
function isLoopbackHttp(url: string): boolean {
  const parsed = new URL(url);
  return parsed.protocol === "http:" && LOOPBACK_HOSTS.has(parsed.hostname);
}

const authentication = (client: OAuthClient) =>
  client.secret ? oauth.ClientSecretPost(client.secret.reveal()) : oauth.None();

/** An openid-client configuration for known endpoints. */
export function configurationFor(server: AuthorizationServer, client: OAuthClient): oauth.Configuration {
  const config = new oauth.Configuration(server, client.id, undefined, authentication(client));
  config.timeout = TIMEOUT_S;
  if (isLoopbackHttp(server.issuer)) oauth.allowInsecureRequests(config);
  return config;
}

/**
 * Finds an issuer's endpoints through its discovery document (`/.well-known/…`).
 * @throws Error when the issuer does not answer with valid metadata.
 */
export function discover(issuer: string, client: OAuthClient): Promise<oauth.Configuration> {
  return oauth.discovery(new URL(issuer), client.id, undefined, authentication(client), {
    timeout: TIMEOUT_S,
    execute: isLoopbackHttp(issuer) ? [oauth.allowInsecureRequests] : [],
  });
}

/** How this deployment asks a provider for grants: its client there, and where the server is. */
export interface OAuthSetup {
  provider: OAuthProvider;
  client: OAuthClient;
  /** An issuer to discover the endpoints at, or the provider's built-in endpoints. */
  endpoints: { issuer: string } | { server: AuthorizationServer };
  /** Names this setup, for caching its configuration. */
  key: string;
}

/**
 * The setup `config` describes for `provider`.
 * @throws Error naming the missing `<PREFIX>_OAUTH_CLIENT_ID` and where the README explains it, or
 *   the allowed regions for an unknown one.
 */
export function oauthSetup(provider: OAuthProvider, config: OAuthClientConfig): OAuthSetup {
  const name = (suffix: string) => `${provider.envPrefix}_OAUTH_${suffix}`;
  if (!config.clientId) {
    throw new Error(
      `${name("CLIENT_ID")} is not set. Create a ${provider.title} OAuth app, then set ${name("CLIENT_ID")}` +
        ` (and ${name("CLIENT_SECRET")} when the app has one); ${README_SECTION} explains how.`,
    );
  }
  const { clientId, clientSecret, issuer } = config;
  return {
    provider,
    client: {
      id: clientId,
      secret: clientSecret ? new Secret(name("CLIENT_SECRET"), clientSecret) : undefined,
    },
    endpoints: issuer ? { issuer } : { server: provider.server(config.region) },
    key: `${provider.id} ${issuer || "built-in"} ${clientId}`,
  };
}

/** The setup's authorization server: discovered at its issuer, or the built-in endpoints. @throws as `discover`. */
export async function configure(setup: OAuthSetup): Promise<oauth.Configuration> {
  const { endpoints, client } = setup;
  return "issuer" in endpoints
    ? discover(endpoints.issuer, client)
    : configurationFor(endpoints.server, client);
}

/** What an authorization request and its callback share: the PKCE verifier and the `state`. */
export interface FlowSecrets {
  verifier: string;
  state: string;
}

export const flowSecrets = (): FlowSecrets => ({
  verifier: oauth.randomPKCECodeVerifier(),
  state: oauth.randomState(),
});

/** The provider's consent page: the code flow with PKCE (S256) and `state`, asking for `scopes`. */
export async function authorizationUrl(
  config: oauth.Configuration,
  provider: OAuthProvider,
  request: FlowSecrets & { redirectUri: string; scopes: readonly string[] },
): Promise<URL> {
  return oauth.buildAuthorizationUrl(config, {
    redirect_uri: request.redirectUri,
    scope: request.scopes.join(" "),
    code_challenge: await oauth.calculatePKCECodeChallenge(request.verifier),
    code_challenge_method: "S256",
    state: request.state,
    ...provider.authorizationParameters,
  });
}

/**
 * Trades the authorization response at `callback` (the redirect URI as registered, with the
 * response's query) for tokens at the token endpoint: a new grant, its account the ID token's email
 * when there is one. `scopes` (those asked for) stand when the server does not list what it granted.
 * @throws openid-client's AuthorizationResponseError when the person or server refused,
 *   ResponseBodyError when the token endpoint did, another Error when it could not be reached.
 */
export async function redeemCode(
  config: oauth.Configuration,
  setup: OAuthSetup,
  callback: URL,
  flow: FlowSecrets & { scopes: string[] },
): Promise<OAuthGrant> {
  const response = await oauth.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: flow.verifier,
    expectedState: flow.state,
  });
  const email = response.claims()?.email;
  return grantFrom(response, {
    provider: setup.provider.id,
    connectedAt: Date.now(),
    ...(typeof email === "string" && email ? { account: email } : {}),
    scopes: flow.scopes,
    server: serverOf(config),
    client: setup.client,
    refreshToken: undefined,
  });
}

/** The endpoints of a configuration, as a grant records them. */
function serverOf(config: oauth.Configuration): GrantServer {
  const { issuer, token_endpoint, revocation_endpoint } = config.serverMetadata();
  if (!token_endpoint) throw new Error(`The authorization server ${issuer} names no token endpoint.`);
  return { issuer, token_endpoint, revocation_endpoint };
}

/**
 * `base` with the tokens of a token-endpoint response. A server that does not rotate refresh
 * tokens, or does not repeat the granted scopes, leaves those of `base` in force.
 */
export function grantFrom(
  response: oauth.TokenEndpointResponse,
  base: Omit<OAuthGrant, "accessToken" | "expiresAt" | "tokenType">,
): OAuthGrant {
  const prefix = base.provider.toUpperCase();
  return {
    ...base,
    accessToken: new Secret(`${prefix}_ACCESS_TOKEN`, response.access_token),
    refreshToken: response.refresh_token
      ? new Secret(`${prefix}_REFRESH_TOKEN`, response.refresh_token)
      : base.refreshToken,
    expiresAt: response.expires_in === undefined ? undefined : Date.now() + response.expires_in * 1000,
    scopes: response.scope ? response.scope.split(" ").filter(Boolean) : base.scopes,
    tokenType: response.token_type,
  };
}

/** An OAuth error code with the server's description, if it gave one. */
export function describeOAuthError(error: { error: string; error_description?: string }): string {
  return `${error.error}${error.error_description ? ` (${error.error_description})` : ""}`;
}
