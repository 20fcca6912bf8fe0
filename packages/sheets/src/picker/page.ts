import { escapeHtml } from "@toolkits/core";
import type { PickedFile, PickerSession } from "./session.js";

/** Google's loader for the Picker API. */
export const GOOGLE_API_SCRIPT = "https://apis.google.com/js/api.js";

const STYLE =
  "body{font:16px/1.5 system-ui,sans-serif;margin:3rem auto;max-width:40rem;padding:0 1rem;color:#202124}" +
  "h1{font-size:1.4rem}li{margin:.25rem 0}code{font-size:.9em}";

function document(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;
}

/** A page with a heading and one paragraph, for expired links and finished sessions. */
export function messagePage(title: string, message: string, files: readonly PickedFile[] = []): string {
  const list = files.length
    ? `<ul>${files.map((file) => `<li>${escapeHtml(file.name)} <code>${escapeHtml(file.id)}</code></li>`).join("")}</ul>`
    : "";
  return document(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>${list}`);
}

/**
 * The picker page: loads Google's API script, opens a Picker on spreadsheets with the session's
 * API key, app id and OAuth token, then posts the picked files to `<page>/picked` and shows the
 * server's answer. The token is in the page body only, never in a URL.
 */
export function pickerPage(session: PickerSession): string {
  const config = {
    apiKey: session.config.apiKey,
    appId: session.config.appId,
    token: session.token.reveal(),
  };
  // `<` escaped so no value can close the script element.
  const json = JSON.stringify(config).replace(/</g, "\\u003c");
  return document(
    "Pick spreadsheets",
    `<h1>Pick spreadsheets for your agent</h1>
<p id="status">Loading Google Picker…</p>
<ul id="files"></ul>
<script type="application/json" id="picker-config">${json}</script>
<script>${PAGE_SCRIPT}</script>`,
  );
}

// Runs in the browser. Plain ES2017 so any current browser runs it untranspiled.
const PAGE_SCRIPT = `(function () {
  var config = JSON.parse(document.getElementById("picker-config").textContent);
  var status = document.getElementById("status");
  var list = document.getElementById("files");
  function say(text) { status.textContent = text; }
  function show(files) {
    list.replaceChildren.apply(list, files.map(function (file) {
      var item = document.createElement("li");
      item.textContent = file.name + " (" + file.id + ")";
      return item;
    }));
  }
  function report(files) {
    say("Saving your choice…");
    fetch(location.pathname.replace(/\\/$/, "") + "/picked", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ files: files })
    }).then(function (response) {
      return response.json().then(function (body) {
        if (!response.ok) throw new Error(body.error || response.statusText);
        show(body.files);
        say(body.message);
      });
    }).catch(function (error) { say("Could not report your choice: " + error.message); });
  }
  function picked(data) {
    var P = google.picker;
    var action = data[P.Response.ACTION];
    if (action === P.Action.CANCEL) return say("Nothing picked. Reload this page to pick again, or close it.");
    if (action !== P.Action.PICKED) return;
    report((data[P.Response.DOCUMENTS] || []).map(function (doc) {
      return { id: doc[P.Document.ID], name: doc[P.Document.NAME], url: doc[P.Document.URL], mimeType: doc[P.Document.MIME_TYPE] };
    }));
  }
  function open() {
    var P = google.picker;
    new P.PickerBuilder()
      .setDeveloperKey(config.apiKey)
      .setAppId(config.appId)
      .setOAuthToken(config.token)
      .addView(new P.DocsView(P.ViewId.SPREADSHEETS))
      .enableFeature(P.Feature.MULTISELECT_ENABLED)
      .setTitle("Pick spreadsheets for your agent")
      .setCallback(picked)
      .build()
      .setVisible(true);
    say("Pick one or more spreadsheets in the Google window.");
  }
  var script = document.createElement("script");
  script.src = ${JSON.stringify(GOOGLE_API_SCRIPT)};
  script.onload = function () {
    gapi.load("picker", { callback: open, onerror: function () { say("Google Picker failed to load. Reload to try again."); } });
  };
  script.onerror = function () { say("Could not load Google's picker script. Check the connection and reload."); };
  document.head.appendChild(script);
})();`;
