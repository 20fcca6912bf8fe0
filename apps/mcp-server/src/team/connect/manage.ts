import type { Grant } from "../../credentials/grant.js";
import { PROVIDERS, type ProviderId } from "../../credentials/providers.js";
import { page } from "../../web/respond.js";
import { messagePage } from "../../web/templates.js";
import { connectionsPage } from "./connections-page.js";
import { type ConnectContext, principalHash } from "./context.js";
import { type SignedInSession, sessionForm } from "./session.js";
import { howToDisconnect } from "./templates.js";
import { type Revocation, revokeConnection } from "./upstream.js";

/** What the connections page says after a form: a confirmation, or what could not be done (400). */
export type Outcome = { notice: string } | { error: string };

/**
 * `GET /connect`: the person's connections, each with its label and buttons to rename it, make it
 * the default and disconnect it, a link connecting another account of each provider connected,
 * and (with the built-in authorization server) the clients they authorised, each with a revoke
 * button. With `outcome`, what the last form did.
 */
export async function listConnections(
  ctx: ConnectContext,
  session: SignedInSession,
  outcome?: Outcome,
): Promise<Response> {
  const { principal, display, csrf } = session.record;
  const connections = await ctx.connections.list(principal);
  const clients = (await ctx.authorization?.clients.list(principal)) ?? [];
  const providers = [...new Set(connections.map((grant) => grant.provider))];
  const links = await Promise.all(
    providers.map(async (provider) => {
      const label = anotherLabel(provider, connections);
      return [provider, (await ctx.connections.link(principal, provider, label)).url] as const;
    }),
  );
  const view = { who: display ?? principal, connections, csrf, clients, another: Object.fromEntries(links) };
  return page(outcome && "error" in outcome ? 400 : 200, connectionsPage({ ...view, ...outcome }));
}

/**
 * The label a link connecting another account of `provider` asks for: none for Google, whose
 * e-mail address names each account apart; else the first free `<provider>-2`, `-3`, …, since a
 * PagerDuty grant names no account and a key may not name its workspace, and a new account saved
 * under the name of one already held would replace it. The person renames it afterwards.
 */
function anotherLabel(provider: ProviderId, connections: readonly Grant[]): string | undefined {
  if (provider === "google") return undefined;
  const held = new Set(
    connections.filter((grant) => grant.provider === provider).map((grant) => grant.label),
  );
  for (let n = 2; ; n++) if (!held.has(`${provider}-${n}`)) return `${provider}-${n}`;
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
  return listConnections(ctx, session, {
    notice: revoked ? "Revoked: that client can no longer act as you." : "That client was not authorised.",
  });
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
