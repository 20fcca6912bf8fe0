// Google's Picker script cannot load in the tests (the network is closed): this stands in for
// https://apis.google.com/js/api.js, recording in `window.__picker.calls` what the page asks of the
// Picker, and picking one spreadsheet as soon as the Picker is shown. Serve it for that URL from a
// browser route (`route.fulfill({ contentType: "text/javascript", body: GOOGLE_API_SCRIPT_STUB })`).

/** The file the stub picks. */
export const STUB_PICKED_FILE = {
  id: "quarterly-report-0",
  name: "Quarterly report",
  url: "https://docs.google.com/spreadsheets/d/quarterly-report-0/edit",
  mimeType: "application/vnd.google-apps.spreadsheet",
};

export const GOOGLE_API_SCRIPT_STUB = `
window.__picker = { calls: [] };
const record = (...call) => window.__picker.calls.push(call);
window.gapi = { load(name, options) { record("gapi.load", name); options.callback(); } };
class DocsView { constructor(viewId) { record("DocsView", viewId); } }
class PickerBuilder {
  setCallback(callback) { record("setCallback"); this.callback = callback; return this; }
  build() {
    record("build");
    const callback = this.callback;
    return { setVisible(visible) {
      record("setVisible", visible);
      if (visible) setTimeout(() => callback({ action: "picked", docs: [${JSON.stringify(STUB_PICKED_FILE)}] }));
    } };
  }
}
for (const name of ["setDeveloperKey", "setAppId", "setOAuthToken", "addView", "enableFeature", "setTitle"]) {
  PickerBuilder.prototype[name] = function (value) { record(name, value instanceof DocsView ? "DocsView" : value); return this; };
}
window.google = { picker: { PickerBuilder, DocsView,
  ViewId: { SPREADSHEETS: "spreadsheets" }, Feature: { MULTISELECT_ENABLED: "multiselect" },
  Response: { ACTION: "action", DOCUMENTS: "docs" }, Action: { PICKED: "picked", CANCEL: "cancel" },
  Document: { ID: "id", NAME: "name", URL: "url", MIME_TYPE: "mimeType" } } };
`;
