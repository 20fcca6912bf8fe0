import type { Grant } from "../../credentials/grant.js";
import { PROVIDERS } from "../../credentials/providers.js";
import { type Html, html } from "../../web/html.js";
import { layout, messagePage } from "../../web/templates.js";
import { CONNECT_PATH } from "../connections.js";

// The connect pages, in the server's page layout (web/templates.ts). Every value reaches them
// through `html`, which escapes it. None is ever given a token, key, code, verifier or state: only
// titles, account names, regions and the CSRF token.

/** The link to the person's connections page. */
export const connectionsLink = html`<a href="${CONNECT_PATH}">your connections</a>`;

/** The close of every page that changed a connection: where to see and undo it. */
export const howToDisconnect = html`To see or disconnect your accounts, open ${connectionsLink} (${CONNECT_PATH} on this server).`;

/** A form's error, when there is one. */
export const errorLine = (error: string | undefined) => error && html`<p class="error">${error}</p>`;

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

/** The App API key form: a key and its region, and the label its link asked for, if any. */
export function marketingFormPage(
  csrf: string,
  options: { error?: string; region?: string; label?: string } = {},
): Html {
  const region = options.region === "eu" ? "eu" : "us";
  return layout(
    `Connect ${PROVIDERS.marketing.title}`,
    html`<p>Create an App API key in Customer.io (Settings → API Credentials → App API Keys) and paste it
here. It is checked with one read request, then kept encrypted for your agent's calls.</p>
${errorLine(options.error)}
<form method="post" action="${CONNECT_PATH}/marketing">
<input type="hidden" name="csrf" value="${csrf}">
${options.label && html`<input type="hidden" name="label" value="${options.label}">`}
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

/** What was connected, under which label, and how to undo it. */
export function connectedPage(connection: Grant): Html {
  const title = PROVIDERS[connection.provider].title;
  const labelled = connection.label ? `, labelled “${connection.label}”` : "";
  const what =
    connection.provider === "marketing"
      ? `Connected ${title} (${(connection.region ?? "us").toUpperCase()} region)${connection.account ? `, workspace ${connection.account}` : ""}${labelled}.`
      : `Connected ${title}${connection.account ? ` as ${connection.account}` : ""}${labelled}.`;
  return messagePage(
    "Connected",
    what,
    "You can close this page and go back to your agent.",
    howToDisconnect,
  );
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
