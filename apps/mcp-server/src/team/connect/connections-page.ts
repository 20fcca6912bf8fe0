import type { Grant } from "../../credentials/grant.js";
import { LABEL_FORM } from "../../credentials/labels.js";
import { PROVIDERS, type ProviderId } from "../../credentials/providers.js";
import { type Html, html } from "../../web/html.js";
import { layout } from "../../web/templates.js";
import type { AuthorisedClient } from "../authorize/consent.js";
import { CONNECT_PATH } from "../connections.js";
import { errorLine } from "./templates.js";

// The /connect page: each account with its label and forms to rename it, make it its provider's
// default and disconnect it; a link to connect another account of each provider; the clients the
// person authorised. Every value reaches it through `html`, which escapes it.

/** What the list shows of a client the person authorised at the built-in authorization server. */
type ShownClient = Pick<AuthorisedClient, "clientId" | "name" | "scopes">;

/** Everything the connections page shows. */
export interface ConnectionsView {
  who: string;
  /** The person's accounts, each provider's default first (as `Connections.list` gives them). */
  connections: readonly Grant[];
  csrf: string;
  /** What the last form did (a confirmation). */
  notice?: string;
  /** What the last form could not do, and why. */
  error?: string;
  clients?: readonly ShownClient[];
  /** For each provider connected: a link connecting another account there. */
  another?: Readonly<Partial<Record<ProviderId, string>>>;
}

/** The clients the person authorised, each with a revoke button; nothing without any. */
function authorisedList(clients: readonly ShownClient[], csrf: string): Html | undefined {
  if (!clients.length) return undefined;
  const items = clients.map(
    (
      client,
    ) => html`<li><strong>${client.name}</strong> <small>${client.clientId}; ${client.scopes.join(" ")}</small>
<form method="post" action="${CONNECT_PATH}/clients/revoke"><input type="hidden" name="csrf" value="${csrf}">
<input type="hidden" name="client_id" value="${client.clientId}"><button type="submit">Revoke</button></form></li>`,
  );
  return html`<h2>Clients you authorised</h2><ul>${items}</ul>`;
}

/** The person's accounts, each with its forms, the links connecting another, then the clients they authorised. */
export function connectionsPage(view: ConnectionsView): Html {
  const { connections, csrf } = view;
  const items = connections.map((connection, at) =>
    accountItem(connection, csrf, connections[at - 1]?.provider !== connection.provider),
  );
  const another = Object.entries(view.another ?? {}).map(
    ([provider, url]) =>
      html`<li><a href="${url}">Connect another ${PROVIDERS[provider as ProviderId].title} account</a></li>`,
  );
  return layout(
    "Your connections",
    html`<p>Signed in as ${view.who} (<a href="${CONNECT_PATH}/sign-out">sign out</a>).</p>
${view.notice && html`<p>${view.notice}</p>`}${errorLine(view.error)}
${connections.length ? html`<ul>${items}</ul>` : html`<p>No accounts are connected. When your agent needs one, it gives you a link to connect it.</p>`}
${another.length ? html`<ul class="another">${another}</ul>` : undefined}
${authorisedList(view.clients ?? [], csrf)}`,
  );
}

/** One account: what it is, and its forms (rename; make default unless it is; disconnect). */
function accountItem(connection: Grant, csrf: string, isDefault: boolean): Html {
  const action = (verb: string) => `${CONNECT_PATH}/${connection.provider}/${verb}`;
  const hidden = html`<input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="label" value="${connection.label ?? ""}">`;
  const id = `label-${connection.provider}-${connection.label ?? ""}`;
  const makeDefault =
    !isDefault &&
    html`<form method="post" action="${action("default")}">${hidden}<button type="submit">Make default</button></form>`;
  return html`<li><strong>${PROVIDERS[connection.provider].title}</strong>${describe(connection, isDefault)}
<form method="post" action="${action("disconnect")}">
${hidden}<button type="submit">Disconnect</button></form>
${makeDefault}
<form method="post" action="${action("rename")}" class="rename">${hidden}
<label for="${id}">New label (${LABEL_FORM})</label>
<input id="${id}" name="new_label" value="${connection.label ?? ""}" required>
<button type="submit">Rename</button></form></li>`;
}

function describe(connection: Grant, isDefault: boolean): Html {
  const parts = [
    connection.account && `as ${connection.account}`,
    connection.provider === "marketing" && connection.region && `${connection.region.toUpperCase()} region`,
    connection.label && `labelled “${connection.label}”`,
    isDefault && "the default",
    `connected ${new Date(connection.connectedAt).toISOString().slice(0, 16).replace("T", " ")} UTC`,
  ].filter(Boolean);
  return html` <small>${parts.join(", ")}</small> `;
}
