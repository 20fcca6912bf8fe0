import type { Sandbox } from "@toolkits/core";
import { driveHandlers } from "./drive.js";
import { sheetsHandlers } from "./sheets.js";
import { SANDBOX_TOKEN, seed } from "./state.js";

export { SANDBOX_TOKEN } from "./state.js";

/** The OAuth client id the sandbox's picker configuration names (project number 123456789012). */
export const SANDBOX_CLIENT_ID = "123456789012-sandbox.apps.googleusercontent.com";

/**
 * A fake Google for tests and `toolkits-mcp --sandbox`, fresh on every call: Sheets v4 at
 * `https://sheets.googleapis.com` (create, get with ranges and field masks, values.update,
 * values.batchUpdate, batchUpdate notes), Drive v3 `files.list` and `about` and OAuth2 `userinfo`
 * at `https://www.googleapis.com`. Accepts only the token `sandbox-google-token` (401 otherwise).
 * Seeded with 13 of the user's spreadsheets (among them "Quarterly report" with sheets "Summary",
 * "Jon's Q1 data" and a hidden "Archive"), a trashed one, a document, two in shared drive
 * `0AFinanceDrive`, two shared to the domain, and `confidential-salaries`, which answers 403.
 */
export function sandbox(): Sandbox {
  const state = seed();
  return {
    handlers: [...sheetsHandlers(state), ...driveHandlers(state)],
    tokens: { google: SANDBOX_TOKEN },
    // A picker configuration, so Sheets.GenerateFilePickerUrl answers with a page URL.
    settings: { GOOGLE_OAUTH_CLIENT_ID: SANDBOX_CLIENT_ID, GOOGLE_PICKER_API_KEY: "sandbox-picker-api-key" },
  };
}
