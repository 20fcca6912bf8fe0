import type { ClientPlan } from "../clients/fit.js";
import type { AccountUrl } from "../connectors/accounts.js";
import { APPS_COUNT_NOTE, type OfferedUrl, toolCount } from "../connectors/offer.js";
import { ICONS_PATH, SERVER_ICON } from "../icons/index.js";
import { Html, html } from "../web/html.js";
import type { UpstreamConnection } from "./account.js";
import { COPY_SCRIPT, STYLE } from "./assets.js";

// Every value reaches the page through `html`, which escapes it; no secret is ever given to it:
// URLs, client steps and snippets (tokens appear only as variable names), account names, the
// session's CSRF token.

/** What the front page shows. */
export interface FrontView {
  /** The public base URL, without `/mcp`. */
  base: string;
  version: string;
  urls: readonly OfferedUrl[];
  plans: readonly ClientPlan[];
  connections: readonly UpstreamConnection[];
  /** Per user: who is signed in, and their session's CSRF token for the disconnect forms. */
  person?: { who: string; csrf: string };
  /** Per user: a connector URL per account where the person holds several at a provider. */
  accountUrls?: readonly AccountUrl[];
}

/** The whole page: connector URLs, each client's way to add one, the upstream connections. */
export function frontPage(view: FrontView): Html {
  const heading = html`<h1>toolkits-mcp <small>${view.version}</small></h1>${signedIn(view.person)}`;
  return layout(
    heading,
    html`<main>
<p>Add this server to your MCP client: pick the URL that serves what you need, then follow your client's steps.</p>
${urlsSection(view)}
${accountsSection(view)}
${clientsSection(view.plans)}
${connectionsSection(view)}
</main>
<p id="copy-status" class="status" role="status"></p>
<script>${new Html(COPY_SCRIPT)}</script>`,
  );
}

/** A page saying one thing (an error), in the front page's style. */
export const messagePage = (title: string, text: string): Html =>
  layout(html`<h1>${title}</h1>`, html`<main><p>${text}</p></main>`);

function layout(heading: Html, body: Html): Html {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>toolkits-mcp</title><style>${new Html(STYLE)}</style></head>
<body><header><img src="${ICONS_PATH}${SERVER_ICON}.svg" alt="" width="40" height="40">${heading}</header>
${body}
</body></html>
`;
}

function signedIn(person: FrontView["person"]): Html | undefined {
  return person && html`<p>Signed in as ${person.who} (<a href="/connect/sign-out">sign out</a>).</p>`;
}

/** A copy button for the element `id`, shown by the script (it copies nothing without it). */
const copyButton = (id: string, what: string) =>
  html`<button type="button" class="copy" data-copy="${id}" aria-label="Copy ${what}" hidden>Copy</button>`;

function urlsSection(view: FrontView): Html {
  const rows = view.urls.map((url, index) => {
    const id = `url-${index}`;
    return html`<tr><td><code id="${id}">${view.base}${url.path}</code> ${copyButton(id, url.path)}</td><td>${url.what}</td><td>${toolCount(url)}</td></tr>`;
  });
  const note = view.urls.some((url) => url.withApps !== undefined) && html`<p>${APPS_COUNT_NOTE}</p>`;
  return html`<section aria-labelledby="urls"><h2 id="urls">Connector URLs</h2>
<p>Each URL serves a part of this server's tools, and never more than the server itself serves:
<code>/mcp/&lt;toolkit&gt;[@&lt;account&gt;][:&lt;toolset&gt;,…][+&lt;toolkit&gt;…][/readonly][/search]</code>.
A toolkit without <code>@&lt;account&gt;</code> acts as your default account there; <code>/mcp/pager@eu</code> acts as the one labelled “eu”.</p>
<table><thead><tr><th scope="col">URL</th><th scope="col">Serves</th><th scope="col">Tools</th></tr></thead>
<tbody>${rows}</tbody></table>${note}</section>`;
}

/** One connector per account, each under its own server name; nothing for a person with one account per provider. */
function accountsSection(view: FrontView): Html | undefined {
  const urls = view.accountUrls ?? [];
  if (!urls.length) return undefined;
  const rows = urls.map((url, index) => {
    const id = `account-url-${index}`;
    return html`<tr><td><code id="${id}">${view.base}${url.path}</code> ${copyButton(id, url.path)}</td><td><code>${url.name}</code></td><td>${url.what}</td></tr>`;
  });
  return html`<section aria-labelledby="accounts"><h2 id="accounts">Your accounts' connector URLs</h2>
<p>To reach several of your accounts at one provider from one client, add one connector per account, each under its own
server name (these keep Claude Code's <code>mcp__&lt;server&gt;__&lt;tool&gt;</code> within 64 characters).</p>
<table><thead><tr><th scope="col">URL</th><th scope="col">Server name</th><th scope="col">Acts as</th></tr></thead>
<tbody>${rows}</tbody></table></section>`;
}

function clientsSection(plans: readonly ClientPlan[]): Html {
  return html`<section aria-labelledby="clients"><h2 id="clients">Clients</h2>${plans.map(clientArticle)}</section>`;
}

function clientArticle(plan: ClientPlan): Html {
  const { guide } = plan;
  const snippets = plan.snippets.map((snippet, index) => {
    const id = `snippet-${guide.id}-${index}`;
    return html`<div class="snippet"><p class="label">${snippet.label} ${copyButton(id, `${snippet.label} for ${guide.title}`)}</p>
<pre tabindex="0"><code id="${id}" data-client="${guide.id}">${snippet.text}</code></pre></div>`;
  });
  const link =
    plan.deepLink &&
    html`<p><a class="install" href="${plan.deepLink.href}" data-client="${guide.id}">${plan.deepLink.label}</a></p>`;
  return html`<article id="client-${guide.id}" aria-labelledby="title-${guide.id}"><h3 id="title-${guide.id}">${guide.title}</h3>
<ol>${plan.steps.map((step) => html`<li>${step}</li>`)}</ol>
${link}${snippets}
${plan.fit.advice.map((advice) => html`<p class="fit">${advice}</p>`)}</article>`;
}

function connectionsSection(view: FrontView): Html {
  const items = view.connections.map((connection) => connectionItem(connection, view.person?.csrf));
  const intro = view.person
    ? html`<p>Your tool calls act with your own accounts. Manage them here or on <a href="/connect">your connections page</a>.</p>`
    : html`<p>Every call to this server acts with these accounts, set up on the machine it runs on.</p>`;
  return html`<section aria-labelledby="connections"><h2 id="connections">Upstream accounts</h2>${intro}
${items.length ? html`<ul class="connections">${items}</ul>` : html`<p>No tool served here needs an account.</p>`}</section>`;
}

function connectionItem(connection: UpstreamConnection, csrf: string | undefined): Html {
  const state = connection.connected ? "Connected" : "Not connected";
  const action = connection.disconnectAction
    ? csrf &&
      html`<form method="post" action="${connection.disconnectAction}"><input type="hidden" name="csrf" value="${csrf}"><button type="submit">Disconnect ${connection.title}</button></form>`
    : connection.connectUrl &&
      html`<a class="connect" href="${connection.connectUrl}">Connect ${connection.title}</a>`;
  const howTo =
    connection.howTo &&
    html`<p>Change it with: ${connection.howTo.map((line, index) => html`${index ? ", " : ""}<code>${line}</code>`)}</p>`;
  return html`<li data-provider="${connection.provider}"><strong>${connection.title}</strong>: ${state}${connection.detail && html` <small>(${connection.detail})</small>`}
${action}${howTo}</li>`;
}
