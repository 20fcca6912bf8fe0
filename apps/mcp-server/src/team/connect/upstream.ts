import { redact, Secret } from "@toolkits/core";
import * as oauth from "openid-client";
import {
  configurationFor,
  discover,
  type OAuthClient,
  revoke,
  serverOf,
  signInFrom,
} from "../../signin/oauth.js";
import { clientSettings, PROVIDERS, type Provider } from "../../signin/providers.js";
import { CONNECT_PATH, type Connection, PROVIDER_TITLES } from "../connections.js";
import { signInOf, tokensOf } from "../credentials.js";
import { type ConnectContext, isOAuthProvider, type OAuthProviderId, principalHash } from "./context.js";
import { peekFlow, saveFlow, takeFlow, type UpstreamFlow } from "./flows.js";
import { page, redirect } from "./respond.js";
import type { SignedInSession } from "./session.js";
import { errorText, oauthErrorCode } from "./signin.js";
import { connectedPage, messagePage } from "./templates.js";

/** A provider's authorization server, as configured for this deployment. */
export interface Upstream {
  id: OAuthProviderId;
  provider: Provider;
  config: oauth.Configuration;
  client: OAuthClient;
}

/** The deployment lacks a provider's OAuth client settings; the message names what to set. */
export class NotConfigured extends Error {}

const providerOf = (id: OAuthProviderId): Provider => PROVIDERS[id] as Provider;

/** Where a provider sends the browser back to. */
export const callbackUrl = (ctx: ConnectContext, id: OAuthProviderId): string =>
  `${ctx.base}${CONNECT_PATH}/${id}/callback`;

/**
 * The provider's endpoints and this deployment's client for it (`<PREFIX>_OAUTH_CLIENT_ID`/
 * `_SECRET`; `<PREFIX>_OAUTH_ISSUER` to discover the endpoints).
 * @throws NotConfigured when the client settings are missing or invalid; Error when discovery fails.
 */
export async function upstreamFor(ctx: ConnectContext, id: OAuthProviderId): Promise<Upstream> {
  const provider = providerOf(id);
  let settings: ReturnType<typeof clientSettings>;
  let server: ReturnType<Provider["server"]> | undefined;
  try {
    settings = clientSettings(provider, ctx.env);
    server = settings.issuer ? undefined : provider.server(ctx.env);
  } catch (error) {
    throw new NotConfigured(errorText(error), { cause: error });
  }
  const secretName = `${provider.envPrefix}_OAUTH_CLIENT_SECRET`;
  const client: OAuthClient = {
    id: settings.clientId,
    secret: settings.clientSecret === undefined ? undefined : new Secret(secretName, settings.clientSecret),
  };
  const issuer = settings.issuer;
  const config = await ctx.configuration(`${id} ${issuer ?? "built-in"} ${client.id}`, async () =>
    issuer ? discover(issuer, client) : configurationFor(server as NonNullable<typeof server>, client),
  );
  return { id, provider, config, client };
}

/**
 * Sends the browser to the provider's consent page: code flow with PKCE (S256) and `state`,
 * asking for the toolkits' scopes. The flow (who, verifier) waits in the store for the callback.
 */
export async function beginUpstream(
  ctx: ConnectContext,
  upstream: Upstream,
  principal: string,
): Promise<Response> {
  const scopes = ctx.scopes(upstream.id);
  const verifier = oauth.randomPKCECodeVerifier();
  const state = oauth.randomState();
  await saveFlow(ctx.store, state, { kind: "upstream", provider: upstream.id, principal, verifier, scopes });
  const url = oauth.buildAuthorizationUrl(upstream.config, {
    redirect_uri: callbackUrl(ctx, upstream.id),
    scope: scopes.join(" "),
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
    ...upstream.provider.authorizationParameters,
  });
  return redirect(url.href, 302);
}

/**
 * `GET /connect/<provider>/callback`: exchanges the code for tokens and stores the connection.
 * Only the person who started the flow may finish it.
 */
export async function finishUpstream(
  ctx: ConnectContext,
  request: Request,
  id: OAuthProviderId,
  session: SignedInSession,
): Promise<Response> {
  const url = new URL(request.url);
  const state = url.searchParams.get("state");
  const flow = state ? await peekFlow(ctx.store, state) : undefined;
  if (!state || flow?.kind !== "upstream" || flow.provider !== id) return flowExpired(id);
  if (flow.principal !== session.record.principal) return notYourFlow();
  if (!(await takeFlow(ctx.store, state))) return flowExpired(id);
  const upstream = await upstreamFor(ctx, id);
  let response: oauth.TokenEndpointResponse & oauth.TokenEndpointResponseHelpers;
  try {
    // The redirect URI as registered, whatever host name the request arrived under.
    response = await oauth.authorizationCodeGrant(
      upstream.config,
      new URL(`${callbackUrl(ctx, id)}${url.search}`),
      {
        pkceCodeVerifier: flow.verifier,
        expectedState: state,
      },
    );
  } catch (error) {
    return exchangeFailed(ctx, id, error);
  }
  const connection = connectionFrom(upstream, response, flow);
  await ctx.connections.save(flow.principal, connection);
  ctx.logger.info("connected", { provider: id, principal: principalHash(flow.principal) });
  return page(200, connectedPage(connection));
}

function connectionFrom(
  upstream: Upstream,
  response: oauth.TokenEndpointResponse & oauth.TokenEndpointResponseHelpers,
  flow: UpstreamFlow,
): Connection {
  // The sign-in code's reading of a token response (wrapping registers the tokens with redact()).
  const server = serverOf(upstream.config);
  const signIn = signInFrom(upstream.provider, response, {
    server,
    client: upstream.client,
    scopes: flow.scopes,
  });
  const email = response.claims()?.email;
  return {
    provider: upstream.id,
    connectedAt: signIn.obtainedAt,
    ...(typeof email === "string" && email ? { account: email } : {}),
    ...tokensOf(signIn),
    server,
    clientId: upstream.client.id,
  };
}

const flowExpired = (id: OAuthProviderId) =>
  page(
    400,
    messagePage(
      "This authorization has expired",
      `It took too long, or it was already finished. Ask your agent for a new link to connect ${PROVIDER_TITLES[id]}.`,
    ),
  );

const notYourFlow = () =>
  page(
    403,
    messagePage(
      "This authorization was started by someone else",
      "Nothing was connected. Ask your agent for a new link while signed in as yourself.",
    ),
  );

function exchangeFailed(ctx: ConnectContext, id: OAuthProviderId, error: unknown): Response {
  const title = PROVIDER_TITLES[id];
  if (error instanceof oauth.AuthorizationResponseError) {
    return page(
      403,
      messagePage(
        "Not connected",
        `${title} did not grant access (${oauthErrorCode(error)}). Ask your agent for a new link to try again.`,
      ),
    );
  }
  ctx.logger.warn("connect token exchange failed", { provider: id, reason: redact(errorText(error)) });
  return page(
    502,
    messagePage(
      "Not connected",
      `${title} did not issue tokens. Ask your agent for a new link to try again.`,
    ),
  );
}

/** What became of a connection's grant at its provider when it was disconnected. */
export type Revocation = "revoked" | "unsupported" | "failed";

/**
 * Revokes a connection's grant at its provider (RFC 7009) when the provider has a revocation
 * endpoint; revoking the refresh token ends the whole grant where servers support it. Best effort:
 * a failure is logged (without the token) and reported as `failed`.
 */
export async function revokeConnection(
  ctx: ConnectContext,
  principal: string,
  connection: Connection,
): Promise<Revocation> {
  if (!isOAuthProvider(connection.provider) || !connection.server) return "unsupported";
  try {
    return (await revoke(signInOf(connection, ctx.env))) ? "revoked" : "unsupported";
  } catch (error) {
    ctx.logger.warn("revocation failed", {
      provider: connection.provider,
      principal: principalHash(principal),
      reason: redact(errorText(error)),
    });
    return "failed";
  }
}
