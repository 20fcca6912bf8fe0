import { defineTool, lazy, ToolError } from "@toolkits/core";
import { z } from "zod";
import { PICKER_PATH } from "../picker/handler.js";
import { openPickerSession, PICKER_TTL_MS } from "../picker/session.js";
import { googleAuth } from "../scopes.js";

/** Settings the picker needs; the app id defaults to the client id's leading project number. */
export const PICKER_SETTINGS = {
  clientId: "GOOGLE_OAUTH_CLIENT_ID",
  apiKey: "GOOGLE_PICKER_API_KEY",
  appId: "GOOGLE_PICKER_APP_ID",
  publicUrl: "TOOLKITS_PUBLIC_URL",
} as const;

const inputSchema = lazy(() => z.object({}));
const outputSchema = lazy(() =>
  z.object({
    url: z.string(),
    expires_at: z.string().describe("ISO 8601"),
    instructions: z.string(),
  }),
);

export const generateFilePickerUrl = defineTool({
  name: "Sheets.GenerateFilePickerUrl",
  title: "Generate file picker URL",
  description:
    "Returns the URL of a Google file picker where the user picks spreadsheets this app may then use (it reaches only files it created or the user picked), and when it expires. Use it when a spreadsheet is not found or access is denied. The link works for 10 minutes.",
  input: inputSchema,
  output: outputSchema,
  hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  auth: googleAuth(),
  async handler(_input, context) {
    const setting = (name: string) => context.setting(name)?.trim() || undefined;
    const clientId = setting(PICKER_SETTINGS.clientId);
    const apiKey = setting(PICKER_SETTINGS.apiKey);
    const publicUrl = setting(PICKER_SETTINGS.publicUrl);
    const appId = setting(PICKER_SETTINGS.appId) ?? /^(\d+)-/.exec(clientId ?? "")?.[1];
    const missing = [
      clientId ? undefined : PICKER_SETTINGS.clientId,
      apiKey ? undefined : PICKER_SETTINGS.apiKey,
      appId || !clientId
        ? undefined
        : `${PICKER_SETTINGS.appId} (the client id does not start with a project number)`,
      publicUrl && /^https?:\/\//.test(publicUrl)
        ? undefined
        : `${PICKER_SETTINGS.publicUrl} (the server's http(s) base URL)`,
    ].filter((name) => name !== undefined);
    if (missing.length || !apiKey || !appId || !publicUrl) {
      throw new ToolError(
        "unauthenticated",
        `The file picker is not configured: set ${missing.join(", ")} for the server and restart it.`,
        { retryable: false },
      );
    }
    const session = await openPickerSession(
      context.state,
      { apiKey, appId },
      (await context.credential()).value,
    );
    return {
      url: `${publicUrl.replace(/\/+$/, "")}${PICKER_PATH}${session.id}`,
      expires_at: new Date(session.expiresAt).toISOString(),
      instructions: `Ask the user to open the link in a browser within ${PICKER_TTL_MS / 60_000} minutes and pick the spreadsheets to share with you. When they say they are done, find them with Sheets.SearchSpreadsheets.`,
    };
  },
});
