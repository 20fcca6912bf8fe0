import { defineTool, lazy } from "@toolkits/core";
import { z } from "zod";
import { a1Range, cellName, parseColumn } from "../a1.js";
import { createGoogleClient } from "../client.js";
import { DRIVE_FILE_SCOPE, googleAuth } from "../scopes.js";
import { assertInGrid, findSheet, sheetRecord } from "../spreadsheet.js";
import { column, row, sheetOutput, spreadsheetId, USER_ENTERED_NOTE } from "./params.js";

const inputSchema = lazy(() =>
  z.object({
    spreadsheet_id: spreadsheetId(),
    column: column(),
    row: row(),
    value: z.string().describe("The value; an empty string clears the cell"),
    sheet_name: z.string().min(1).default("Sheet1").describe("Sheet title (or numeric sheet id)"),
  }),
);
const outputSchema = lazy(() =>
  z.object({
    spreadsheet_id: z.string(),
    sheet: sheetOutput(),
    cell: z.string().describe("A1 name, e.g. C7"),
    value: z.string().optional().describe("The cell as displayed after the write"),
  }),
);

export const writeToCell = defineTool({
  name: "Sheets.WriteToCell",
  title: "Write to cell",
  description: `Writes one value to one cell, replacing what it held. ${USER_ENTERED_NOTE} Returns the value as Sheets displays it.`,
  input: inputSchema,
  output: outputSchema,
  hints: { readOnly: false, destructive: true, idempotent: true, openWorld: true },
  auth: googleAuth(DRIVE_FILE_SCOPE),
  async handler(input, context) {
    const columnNumber = parseColumn(input.column, "column");
    const cell = cellName(input.row, columnNumber);
    const client = createGoogleClient(context);
    const spreadsheet = await client.spreadsheet(input.spreadsheet_id);
    const sheet = findSheet(spreadsheet, { idOrName: input.sheet_name });
    assertInGrid(sheet, input.row, columnNumber, cell);
    const written = await client.writeCell(
      spreadsheet.id,
      a1Range(sheet.title, input.row, columnNumber),
      input.value,
    );
    const shown = written.updatedData?.values?.[0]?.[0];
    return {
      spreadsheet_id: spreadsheet.id,
      sheet: sheetRecord(sheet),
      cell,
      value: shown === undefined ? undefined : String(shown),
    };
  },
});
