import { type Html, html } from "../../web/html.js";
import { layout } from "../../web/templates.js";
import { WRITE_SCOPE } from "./scopes.js";

/** Everything the consent page shows; all of it escaped on the way in. */
export interface ConsentView {
  /** Who is signed in. */
  who: string;
  /** The client's own name (self-asserted: the hosts below are what it cannot fake). */
  clientName: string;
  /** Where the client's identity comes from: its metadata document's host, or registration here. */
  clientOrigin: { kind: "document"; host: string } | { kind: "registered" };
  /** The host the authorization goes back to (a scheme, for an app's own `cursor://` URI). */
  redirectHost: string;
  /** Every redirect URI of the client is on this machine's loopback: any local program can claim it. */
  loopbackOnly: boolean;
  /** The client's logo, a cached copy as a data URI. */
  logo?: string;
  scopes: readonly string[];
  /**
   * The person's upstream accounts: connected, or a link that connects one; `label` when the
   * connector URL names which of the person's accounts at that provider the client acts as.
   */
  connections: readonly { title: string; label?: string; account?: string; link?: string }[];
  csrf: string;
  /** Where the form posts. */
  action: string;
}

const SCOPE_TEXT: Readonly<Record<string, string>> = {
  pager: "PagerDuty tools: incidents, services, schedules, on-call",
  sheets: "Google Sheets and Drive tools",
  marketing: "Customer.io tools",
  [WRITE_SCOPE]: "change things, not just read them (create, update, delete) in the toolkits above",
};

const CONSENT_STYLE = html`<style>.client{display:flex;gap:1rem;align-items:center}.client img{width:48px;height:48px}
label input{width:auto}
.warning{background:#fff4e5;border:1px solid #e0a050;padding:.6rem 1rem}.deny{background:none;border:none;color:#555}</style>`;

/** The consent page: who asks, for what, and the person's upstream connections. */
export function consentPage(view: ConsentView): Html {
  const origin =
    view.clientOrigin.kind === "document"
      ? html`its identity is published at <strong>${view.clientOrigin.host}</strong>`
      : html`it registered itself with this server, so its name is its own claim`;
  const warning =
    view.loopbackOnly &&
    html`<p class="warning">This client receives the authorization on this computer (localhost). Any program running
here can claim that address: approve only if you just started connecting from an app on this computer.</p>`;
  return layout(
    "Allow access?",
    html`${CONSENT_STYLE}<div class="client">${view.logo && html`<img src="${view.logo}" alt="">`}
<p><strong>${view.clientName}</strong> asks to use this server's tools as you (${view.who}); ${origin}.
The authorization goes back to <strong>${view.redirectHost}</strong>.</p></div>
${warning}
<p>Your accounts (tools use them as you; connect one now so the first call already works):</p>
<ul>${view.connections.map(connectionItem)}</ul>
<form method="post" action="${view.action}">
<p>It asks for (untick what it should not have):</p>
${view.scopes.map(
  (scope) =>
    html`<label><input type="checkbox" name="scope" value="${scope}" checked> <strong>${scope}</strong>: ${SCOPE_TEXT[scope] ?? scope}</label>`,
)}
<input type="hidden" name="csrf" value="${view.csrf}">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny" class="deny">Deny</button>
</form>`,
  );
}

function connectionItem(connection: ConsentView["connections"][number]): Html {
  const { title, label } = connection;
  const which =
    label === undefined
      ? html`<strong>${title}</strong>`
      : html`<strong>${title}</strong>: the client acts as your ${title} account “${label}”,`;
  if (connection.link === undefined)
    return html`<li>${which} connected${connection.account && html` as ${connection.account}`}</li>`;
  const named = label === undefined ? title : `${title} account “${label}”`;
  return html`<li>${which} not connected:
<a href="${connection.link}" target="_blank" rel="noopener">Connect ${named}</a></li>`;
}
