import { PROVIDERS, type ProviderId } from "../../credentials/providers.js";
import { page } from "../../web/respond.js";
import { messagePage } from "../../web/templates.js";
import { type ConnectContext, principalHash } from "./context.js";
import { type SignedInSession, sessionForm } from "./session.js";
import { connectionsPage, howToDisconnect } from "./templates.js";
import { type Revocation, revokeConnection } from "./upstream.js";

/**
 * `GET /connect`: the person's connections, each with a disconnect button, and (with the built-in
 * authorization server) the clients they authorised, each with a revoke button.
 */
export async function listConnections(
  ctx: ConnectContext,
  session: SignedInSession,
  notice?: string,
): Promise<Response> {
  const { principal, display, csrf } = session.record;
  const connections = await ctx.connections.list(principal);
  const clients = (await ctx.authorization?.clients.list(principal)) ?? [];
  return page(200, connectionsPage(display ?? principal, connections, csrf, notice, clients));
}

/**
 * `POST /connect/clients/revoke`: ends every grant the person gave the client (`client_id`): its
 * refresh tokens stop working at once, its access tokens within minutes.
 */
export async function revokeAuthorised(
  ctx: ConnectContext,
  request: Request,
  session: SignedInSession,
): Promise<Response> {
  const form = await sessionForm(session, request);
  const clients = ctx.authorization?.clients;
  const clientId = form?.get("client_id");
  if (!form || !clients || !clientId)
    return page(400, messagePage("This form has expired", "Nothing was revoked.", howToDisconnect));
  const revoked = await clients.revoke(session.record.principal, clientId);
  ctx.logger.info("client revoked", { principal: principalHash(session.record.principal), revoked });
  return listConnections(
    ctx,
    session,
    revoked ? "Revoked: that client can no longer act as you." : "That client was not authorised.",
  );
}

/**
 * `POST /connect/<provider>/disconnect`: removes the connection here (the account its form's
 * `label` names, else the provider's default; the others stay), then revokes it upstream
 * where the provider can (a failed revocation still leaves it removed here, and the page says so).
 */
export async function disconnect(
  ctx: ConnectContext,
  request: Request,
  provider: ProviderId,
  session: SignedInSession,
): Promise<Response> {
  const form = await sessionForm(session, request);
  if (!form) {
    return page(400, messagePage("This form has expired", "Nothing was disconnected.", howToDisconnect));
  }
  const { principal } = session.record;
  // The form names the account it was shown beside; a form without one (the front page's) means
  // the default, which is the one such a form shows.
  const label = form.get("label") || undefined;
  const removed = await ctx.connections.of(principal).remove(provider, label);
  const title = PROVIDERS[provider].title;
  if (!removed)
    return page(200, messagePage("Not connected", `${title} was not connected.`, howToDisconnect));
  const revocation = await revokeConnection(ctx, principal, removed);
  ctx.logger.info("disconnected", { provider, principal: principalHash(principal), revocation });
  return page(
    200,
    messagePage("Disconnected", `Disconnected ${title}.`, outcome(provider, revocation), howToDisconnect),
  );
}

function outcome(provider: ProviderId, revocation: Revocation): string {
  const title = PROVIDERS[provider].title;
  if (revocation === "revoked") return `${title} was told to revoke the access it granted.`;
  if (revocation === "failed") {
    return `It is no longer stored here, but ${title} did not confirm revoking the access; remove this app's access in your ${title} account settings.`;
  }
  if (provider === "marketing") {
    return "The key is no longer stored here. It still works at Customer.io: delete it there (Settings → API Credentials) if nothing else uses it.";
  }
  return `It is no longer stored here; ${title} offers no way to revoke it from here, so remove this app's access in your ${title} account settings.`;
}
