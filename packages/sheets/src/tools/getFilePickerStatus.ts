import { defineTool, lazy } from "@toolkits/core";
import { z } from "zod";
import { PICKER_ID } from "../picker/handler.js";
import { findPickerSession } from "../picker/session.js";

const pickedFile = lazy(() => z.object({ id: z.string(), name: z.string(), url: z.string().optional() }));

const inputSchema = lazy(() =>
  z.object({
    picker_id: z
      .string()
      .regex(PICKER_ID)
      .describe("The last path segment of the picker url from Sheets.GenerateFilePickerUrl"),
  }),
);
const outputSchema = lazy(() =>
  z.object({
    status: z.enum(["waiting", "picked", "expired"]),
    files: z.array(pickedFile()).optional().describe("Present once picked"),
    expires_at: z.string().optional().describe("ISO 8601; absent once expired"),
  }),
);

/**
 * Where a picker link stands, for the view that opened it: waiting for a pick, picked (with the
 * files' ids and names, never the token the page used), or expired. The link's id is its only
 * input: an opaque handle that works for 10 minutes and takes one pick. Read from the caller's own
 * state, so one person never learns of another's pick. App-only plumbing: the model learns of the
 * pick from the view.
 */
export const getFilePickerStatus = defineTool({
  name: "Sheets.GetFilePickerStatus",
  title: "Get file picker status",
  description:
    "Tells whether the user has picked files on a picker link from Sheets.GenerateFilePickerUrl: waiting, picked (with the files) or expired. For views; the model learns of the pick from the view.",
  input: inputSchema,
  output: outputSchema,
  hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  // Reads only this server's own state: no Google call, so no Google credential.
  auth: {},
  async handler({ picker_id }, context) {
    const session = await findPickerSession(context.state, picker_id);
    if (!session) return { status: "expired" as const };
    const expires_at = new Date(session.expiresAt).toISOString();
    if (!session.picked) return { status: "waiting" as const, expires_at };
    const files = session.picked.map(({ id, name, url }) => ({ id, name, url }));
    return { status: "picked" as const, files, expires_at };
  },
});
