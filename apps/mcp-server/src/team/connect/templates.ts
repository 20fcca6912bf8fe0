import type { Grant } from "../../credentials/grant.js";
import { PROVIDERS } from "../../credentials/providers.js";
import { CONNECT_PATH } from "../connections.js";
import { type Html, html } from "./html.js";

// Every value reaches these templates through `html`, which escapes it. None is ever given a
// token, key, code, verifier or state: only titles, account names, regions and the CSRF token.

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#222}
h1{font-size:1.4rem}label{display:block;margin:.8rem 0 .2rem}input,select{font:inherit;padding:.3rem;width:100%;box-sizing:border-box}
button{font:inherit;padding:.4rem 1rem;margin-top:1rem}.error{color:#a00}ul{padding:0;list-style:none}
li{border:1px solid #ccc;border-radius:4px;padding:.6rem 1rem;margin:.6rem 0}li form{display:inline}small{color:#555}`;

/** A whole page around `body`. */
export function layout(title: string, body: Html): Html {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><style>${STYLE}</style></head>
<body><h1>${title}</h1>
${body}
</body></html>
`;
}

/** A page of plain paragraphs (text escaped; `Html` parts kept). */
export function messagePage(title: string, ...paragraphs: Array<string | Html>): Html {
  return layout(title, html`${paragraphs.map((paragraph) => html`<p>${paragraph}</p>`)}`);
}

const connectionsLink = html`<a href="${CONNECT_PATH}">your connections</a>`;

/** The close of every page that changed a connection: where to see and undo it. */
export const howToDisconnect = html`To see or disconnect your accounts, open ${connectionsLink} (${CONNECT_PATH} on this server).`;

const errorLine = (error: string | undefined) => error && html`<p class="error">${error}</p>`;

/**
 * Signing in with a named static token; with `idp`, a link to sign in at the identity provider
 * instead (for the people whose agents use its tokens).
 */
export function tokenSignInPage(csrf: string, options: { error?: string; idp?: boolean } = {}): Html {
  const idp =
    options.idp &&
    html`<p>If your agent signs in with your organization's account, <a href="${CONNECT_PATH}/sign-in?with=idp">sign in with it</a>.
Otherwise:</p>`;
  return layout(
    "Sign in",
    html`${idp}<p>Paste the access token this server gave you (the one your agent uses), so the accounts you
connect are yours.</p>
${errorLine(options.error)}
<form method="post" action="${CONNECT_PATH}/sign-in">
<input type="hidden" name="csrf" value="${csrf}">
<label for="token">Your token</label>
<input id="token" name="token" type="password" autocomplete="off" required>
<button type="submit">Sign in</button>
</form>`,
  );
}

/** The App API key form: a key and its region. */
export function marketingFormPage(csrf: string, options: { error?: string; region?: string } = {}): Html {
  const region = options.region === "eu" ? "eu" : "us";
  return layout(
    `Connect ${PROVIDERS.marketing.title}`,
    html`<p>Create an App API key in Customer.io (Settings → API Credentials → App API Keys) and paste it
here. It is checked with one read request, then kept encrypted for your agent's calls.</p>
${errorLine(options.error)}
<form method="post" action="${CONNECT_PATH}/marketing">
<input type="hidden" name="csrf" value="${csrf}">
<label for="api_key">App API key</label>
<input id="api_key" name="api_key" type="password" autocomplete="off" required>
<label for="region">Region of the workspace</label>
<select id="region" name="region">
<option value="us"${region === "us" ? html` selected` : ""}>US</option>
<option value="eu"${region === "eu" ? html` selected` : ""}>EU</option>
</select>
<button type="submit">Connect</button>
</form>`,
  );
}

/** What was connected, and how to undo it. */
export function connectedPage(connection: Grant): Html {
  const title = PROVIDERS[connection.provider].title;
  const what =
    connection.provider === "marketing"
      ? `Connected ${title} (${(connection.region ?? "us").toUpperCase()} region).`
      : `Connected ${title}${connection.account ? ` as ${connection.account}` : ""}.`;
  return messagePage(
    "Connected",
    what,
    "You can close this page and go back to your agent.",
    howToDisconnect,
  );
}

/** A client the person authorised at the built-in authorization server. */
export interface AuthorisedClient {
  clientId: string;
  name: string;
  scopes: readonly string[];
}

/** The clients the person authorised, each with a revoke button; nothing without any. */
function authorisedList(clients: readonly AuthorisedClient[], csrf: string): Html | undefined {
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

/** The person's connections, each with a disconnect button, then the clients they authorised. */
export function connectionsPage(
  who: string,
  connections: readonly Grant[],
  csrf: string,
  notice?: string,
  clients: readonly AuthorisedClient[] = [],
): Html {
  const items = connections.map(
    (connection) => html`<li><strong>${PROVIDERS[connection.provider].title}</strong>${describe(connection)}
<form method="post" action="${CONNECT_PATH}/${connection.provider}/disconnect">
<input type="hidden" name="csrf" value="${csrf}"><button type="submit">Disconnect</button></form></li>`,
  );
  return layout(
    "Your connections",
    html`<p>Signed in as ${who} (<a href="${CONNECT_PATH}/sign-out">sign out</a>).</p>
${notice && html`<p>${notice}</p>`}
${connections.length ? html`<ul>${items}</ul>` : html`<p>No accounts are connected. When your agent needs one, it gives you a link to connect it.</p>`}
${authorisedList(clients, csrf)}`,
  );
}

function describe(connection: Grant): Html {
  const parts = [
    connection.account && `as ${connection.account}`,
    connection.provider === "marketing" && connection.region && `${connection.region.toUpperCase()} region`,
    `connected ${new Date(connection.connectedAt).toISOString().slice(0, 16).replace("T", " ")} UTC`,
  ].filter(Boolean);
  return html` <small>${parts.join(", ")}</small> `;
}

/** The sign-out button of a signed-in browser. */
export function signOutPage(who: string, csrf: string): Html {
  return layout(
    "Sign out",
    html`<p>Signed in as ${who}. Signing out ends this browser's session here; your connected accounts
stay connected for your agent.</p>
<form method="post" action="${CONNECT_PATH}/sign-out">
<input type="hidden" name="csrf" value="${csrf}"><button type="submit">Sign out</button></form>`,
  );
}
