import { defineTool, lazy } from "@toolkits/core";
import { z } from "zod";
import { cellName, parseColumn } from "../a1.js";
import { createGoogleClient } from "../client.js";
import { DRIVE_FILE_SCOPE, googleAuth } from "../scopes.js";
import { assertInGrid, findSheet, sheetRecord } from "../spreadsheet.js";
import { column, row, sheetIdOrName, sheetOutput, sheetPosition, spreadsheetId } from "./params.js";

const inputSchema = lazy(() =>
  z.object({
    spreadsheet_id: spreadsheetId(),
    column: column(),
    row: row(),
    note_text: z.string().describe("The note"),
    sheet_position: sheetPosition(),
    sheet_id_or_name: sheetIdOrName(),
  }),
);
const outputSchema = lazy(() =>
  z.object({
    spreadsheet_id: z.string(),
    sheet: sheetOutput(),
    cell: z.string().describe("A1 name, e.g. C7"),
    note: z.string(),
  }),
);

export const addNoteToCell = defineTool({
  name: "Sheets.AddNoteToCell",
  title: "Add note to cell",
  description:
    "Sets the note on one cell, replacing any note it had (an empty note_text removes it). The cell's value is unchanged.",
  input: inputSchema,
  output: outputSchema,
  hints: { readOnly: false, destructive: true, idempotent: true, openWorld: true },
  auth: googleAuth(DRIVE_FILE_SCOPE),
  async handler(input, context) {
    const columnNumber = parseColumn(input.column, "column");
    const cell = cellName(input.row, columnNumber);
    const client = createGoogleClient(context);
    const spreadsheet = await client.spreadsheet(input.spreadsheet_id);
    const sheet = findSheet(spreadsheet, {
      idOrName: input.sheet_id_or_name,
      position: input.sheet_position,
    });
    assertInGrid(sheet, input.row, columnNumber, cell);
    await client.setNote(spreadsheet.id, sheet.id, input.row, columnNumber, input.note_text);
    return { spreadsheet_id: spreadsheet.id, sheet: sheetRecord(sheet), cell, note: input.note_text };
  },
});
