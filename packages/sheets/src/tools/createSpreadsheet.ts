import { defineTool, lazy, ToolError, toToolError } from "@toolkits/core";
import { z } from "zod";
import { cellBlocks, gridFor, parseCellData } from "../cells.js";
import { createGoogleClient } from "../client.js";
import { DRIVE_FILE_SCOPE, googleAuth } from "../scopes.js";
import { sheetRecord } from "../spreadsheet.js";
import { cellData, sheetOutput, USER_ENTERED_NOTE } from "./params.js";

const inputSchema = lazy(() =>
  z.object({
    title: z.string().min(1).default("Untitled spreadsheet").describe("Spreadsheet title"),
    data: cellData().optional(),
  }),
);
const outputSchema = lazy(() =>
  z.object({
    spreadsheet_id: z.string(),
    title: z.string(),
    url: z.string(),
    sheet: sheetOutput(),
    updated_cells: z.number().int().describe("Cells written from data"),
  }),
);

export const createSpreadsheet = defineTool({
  name: "Sheets.CreateSpreadsheet",
  title: "Create spreadsheet",
  description: `Creates a spreadsheet in the user's drive and optionally fills its first sheet (Sheet1) from a cell data map. ${USER_ENTERED_NOTE} Not idempotent: every call creates another spreadsheet.`,
  input: inputSchema,
  output: outputSchema,
  hints: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  auth: googleAuth(DRIVE_FILE_SCOPE),
  async handler({ title, data }, context) {
    const cells = data === undefined ? [] : parseCellData(data, "data");
    const client = createGoogleClient(context);
    const created = await client.create(title, gridFor(cells));
    const sheet = created.sheets[0];
    if (!sheet)
      throw new ToolError("upstream_error", `Google created spreadsheet ${created.id} without a sheet.`);
    const result = {
      spreadsheet_id: created.id,
      title: created.title,
      url: created.url,
      sheet: sheetRecord(sheet),
    };
    if (!cells.length) return { ...result, updated_cells: 0 };
    // The cells go in a second, retry-safe USER_ENTERED write, so they parse exactly as UpdateCells'.
    try {
      const written = await client.writeBlocks(created.id, cellBlocks(sheet.title, cells));
      return { ...result, updated_cells: written.totalUpdatedCells ?? cells.length };
    } catch (error) {
      const failure = toToolError(error);
      throw new ToolError(
        failure.kind,
        `Spreadsheet ${created.id} was created (${created.url}) but writing its data failed: ${failure.message} Write the data with Sheets.UpdateCells on that spreadsheet_id; do not create it again.`,
        { status: failure.status, retryAfterMs: failure.retryAfterMs, retryable: false, cause: error },
      );
    }
  },
});
