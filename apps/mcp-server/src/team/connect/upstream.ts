import { redact } from "@toolkits/core";
import * as oauth from "openid-client";
import type { Grant } from "../../credentials/grant.js";
import {
  authorizationUrl,
  configure,
  flowSecrets,
  type OAuthSetup,
  oauthSetup,
  redeemCode,
} from "../../credentials/oauth.js";
import { type OAuthProviderId, PROVIDERS } from "../../credentials/providers.js";
import { revokeGrant } from "../../credentials/renew.js";
import { page, redirect } from "../../web/respond.js";
import { messagePage } from "../../web/templates.js";
import { CONNECT_PATH, type LinkOwner } from "../connections.js";
import { type ConnectContext, principalHash } from "./context.js";
import { errorText, exchangeFailure, oauthErrorCode } from "./failures.js";
import { peekFlow, saveFlow, takeFlow, type UpstreamFlow } from "./flows.js";
import type { SignedInSession } from "./session.js";
import { connectedPage } from "./templates.js";

/** A provider's authorization server, as configured for this deployment. */
export interface Upstream {
  setup: OAuthSetup;
  config: oauth.Configuration;
}

/** The deployment lacks a provider's OAuth client settings; the message names what to set. */
export class NotConfigured extends Error {}

/** Where a provider sends the browser back to. */
export const callbackUrl = (ctx: ConnectContext, id: OAuthProviderId): string =>
  `${ctx.base}${CONNECT_PATH}/${id}/callback`;

/**
 * The provider's endpoints and this deployment's client for it (`<PREFIX>_OAUTH_CLIENT_ID`/
 * `_SECRET`; `<PREFIX>_OAUTH_ISSUER` to discover the endpoints).
 * @throws NotConfigured when the client settings are missing or invalid; Error when discovery fails.
 */
export async function upstreamFor(ctx: ConnectContext, id: OAuthProviderId): Promise<Upstream> {
  let setup: OAuthSetup;
  try {
    setup = oauthSetup(PROVIDERS[id], ctx.oauthClients[id]);
  } catch (error) {
    throw new NotConfigured(errorText(error), { cause: error });
  }
  return { setup, config: await ctx.configuration(setup.key, () => configure(setup)) };
}

/**
 * Sends the browser to the provider's consent page: code flow with PKCE (S256) and `state`,
 * asking for the toolkits' scopes. The flow (who, verifier, the label its link asked for) waits in
 * the store for the callback.
 */
export async function beginUpstream(
  ctx: ConnectContext,
  upstream: Upstream,
  owner: LinkOwner,
): Promise<Response> {
  const provider = upstream.setup.provider;
  const scopes = ctx.scopes(provider.id);
  const secrets = flowSecrets();
  const { verifier, state } = secrets;
  const { principal, label } = owner;
  const flow: UpstreamFlow = { kind: "upstream", provider: provider.id, principal, verifier, scopes };
  await saveFlow(ctx.store, state, label === undefined ? flow : { ...flow, label });
  const redirectUri = callbackUrl(ctx, provider.id);
  const url = await authorizationUrl(upstream.config, provider, { ...secrets, redirectUri, scopes });
  return redirect(url.href, 302);
}

/**
 * `GET /connect/<provider>/callback`: exchanges the code for tokens and stores the grant, under the
 * label the flow's link asked for (else one derived from the account). Only the person who started
 * the flow may finish it.
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
  const { setup, config } = await upstreamFor(ctx, id);
  let grant: Grant;
  try {
    // The redirect URI as registered, whatever host name the request arrived under.
    const callback = new URL(`${callbackUrl(ctx, id)}${url.search}`);
    grant = await redeemCode(config, setup, callback, { ...flow, state });
  } catch (error) {
    return exchangeFailed(ctx, id, error);
  }
  const label = await ctx.connections
    .of(flow.principal)
    .save({ ...grant, ...(flow.label ? { label: flow.label } : {}) });
  ctx.logger.info("connected", { provider: id, principal: principalHash(flow.principal) });
  return page(200, connectedPage({ ...grant, label }));
}

const flowExpired = (id: OAuthProviderId) =>
  page(
    400,
    messagePage(
      "This authorization has expired",
      `It took too long, or it was already finished. Ask your agent for a new link to connect ${PROVIDERS[id].title}.`,
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
  const title = PROVIDERS[id].title;
  if (error instanceof oauth.AuthorizationResponseError) {
    return page(
      403,
      messagePage(
        "Not connected",
        `${title} did not grant access (${oauthErrorCode(error)}). Ask your agent for a new link to try again.`,
      ),
    );
  }
  ctx.logger.warn("connect token exchange failed", { provider: id, ...exchangeFailure(error) });
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
 * Revokes a grant at its provider (RFC 7009) when the provider has a revocation endpoint; revoking
 * the refresh token ends the whole grant where servers support it. Best effort: a failure is
 * logged (without the token) and reported as `failed`.
 */
export async function revokeConnection(
  ctx: Pick<ConnectContext, "logger">,
  principal: string,
  grant: Grant,
): Promise<Revocation> {
  if (grant.provider === "marketing") return "unsupported";
  try {
    return (await revokeGrant(grant)) ? "revoked" : "unsupported";
  } catch (error) {
    ctx.logger.warn("revocation failed", {
      provider: grant.provider,
      principal: principalHash(principal),
      reason: redact(errorText(error)),
    });
    return "failed";
  }
}
