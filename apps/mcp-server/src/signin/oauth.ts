import { Secret, ToolError } from "@toolkits/core";
import * as oauth from "openid-client";
import { type AuthorizationServer, type Provider, signInAgain } from "./providers.js";
import type { SignIn } from "./store.js";

/** Discovery and token-endpoint requests give up after this long, in seconds. */
const TIMEOUT_S = 20;

/** The OAuth client a sign-in uses: its id and, for confidential clients, its secret. */
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
 * Finds an issuer's endpoints through its discovery document.
 * @throws Error when the issuer does not answer with valid metadata.
 */
export function discover(issuer: string, client: OAuthClient): Promise<oauth.Configuration> {
  return oauth.discovery(new URL(issuer), client.id, undefined, authentication(client), {
    timeout: TIMEOUT_S,
    execute: isLoopbackHttp(issuer) ? [oauth.allowInsecureRequests] : [],
  });
}

/** The endpoints of a configuration, as a sign-in records them. */
export function serverOf(config: oauth.Configuration): SignIn["server"] {
  const { issuer, token_endpoint, revocation_endpoint } = config.serverMetadata();
  if (!token_endpoint) throw new Error(`The authorization server ${issuer} names no token endpoint.`);
  return { issuer, token_endpoint, revocation_endpoint };
}

/**
 * A sign-in from a token-endpoint response. A server that does not rotate refresh tokens, or does
 * not repeat the granted scopes, leaves those of `previous` in force.
 */
export function signInFrom(
  provider: Provider,
  response: oauth.TokenEndpointResponse,
  base: Pick<SignIn, "server" | "client" | "scopes">,
  previous?: SignIn,
): SignIn {
  const now = Date.now();
  const prefix = provider.envPrefix;
  return {
    accessToken: new Secret(`${prefix}_ACCESS_TOKEN`, response.access_token),
    refreshToken: response.refresh_token
      ? new Secret(`${prefix}_REFRESH_TOKEN`, response.refresh_token)
      : previous?.refreshToken,
    expiresAt: response.expires_in === undefined ? undefined : now + response.expires_in * 1000,
    scopes: response.scope ? response.scope.split(" ").filter(Boolean) : base.scopes,
    tokenType: response.token_type,
    obtainedAt: now,
    server: base.server,
    client: base.client,
  };
}

/** OAuth error codes after which only a new sign-in helps. */
const SIGN_IN_AGAIN = new Set(["invalid_grant", "invalid_client", "unauthorized_client"]);

/**
 * Trades the sign-in's refresh token for a new access token at the server that issued it.
 * @throws ToolError `unauthenticated` saying to run `login` again when the refresh token was
 *   revoked or expired (or the OAuth client is gone); `upstream_unavailable` when the server
 *   cannot be reached; `upstream_error` for any other refusal.
 */
export async function refresh(provider: Provider, signIn: SignIn): Promise<SignIn> {
  if (!signIn.refreshToken) throw signInAgain(provider, "has expired and holds no refresh token");
  const config = configurationFor(signIn.server, signIn.client);
  let response: oauth.TokenEndpointResponse;
  try {
    response = await oauth.refreshTokenGrant(config, signIn.refreshToken.reveal());
  } catch (error) {
    throw refreshFailure(provider, signIn, error);
  }
  return signInFrom(provider, response, signIn, signIn);
}

function refreshFailure(provider: Provider, signIn: SignIn, error: unknown): ToolError {
  if (error instanceof oauth.ResponseBodyError) {
    const answer = `${signIn.server.issuer} answered ${describeOAuthError(error)}`;
    if (SIGN_IN_AGAIN.has(error.error)) return signInAgain(provider, `could not be refreshed: ${answer}`);
    return new ToolError("upstream_error", `Refreshing the ${provider.title} sign-in failed: ${answer}.`, {
      status: error.status,
      cause: error,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ToolError(
    "upstream_unavailable",
    `Could not reach ${signIn.server.issuer} to refresh the ${provider.title} sign-in: ${message}`,
    { cause: error },
  );
}

/** An OAuth error code with the server's description, if it gave one. */
export function describeOAuthError(error: { error: string; error_description?: string }): string {
  return `${error.error}${error.error_description ? ` (${error.error_description})` : ""}`;
}

/**
 * Revokes the sign-in at its server when the server has a revocation endpoint (RFC 7009); revoking
 * the refresh token ends the whole grant at servers that support it.
 * @returns whether a revocation was sent and accepted.
 * @throws Error when the server refuses or cannot be reached.
 */
export async function revoke(signIn: SignIn): Promise<boolean> {
  if (!signIn.server.revocation_endpoint) return false;
  const config = configurationFor(signIn.server, signIn.client);
  const token = signIn.refreshToken ?? signIn.accessToken;
  const hint = signIn.refreshToken ? "refresh_token" : "access_token";
  await oauth.tokenRevocation(config, token.reveal(), { token_type_hint: hint });
  return true;
}
