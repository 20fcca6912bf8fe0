import { defineTool, lazy, ToolError } from "@toolkits/core";
import { z } from "zod";
import { cellName } from "../a1.js";
import { cellBlocks, parseCellData } from "../cells.js";
import { createGoogleClient } from "../client.js";
import { DRIVE_FILE_SCOPE, googleAuth } from "../scopes.js";
import { assertInGrid, findSheet, sheetRecord } from "../spreadsheet.js";
import {
  cellData,
  sheetIdOrName,
  sheetOutput,
  sheetPosition,
  spreadsheetId,
  USER_ENTERED_NOTE,
} from "./params.js";

const inputSchema = lazy(() =>
  z.object({
    spreadsheet_id: spreadsheetId(),
    data: cellData(),
    sheet_position: sheetPosition(),
    sheet_id_or_name: sheetIdOrName(),
  }),
);
const outputSchema = lazy(() =>
  z.object({
    spreadsheet_id: z.string(),
    sheet: sheetOutput(),
    updated_cells: z.number().int(),
    updated_ranges: z.array(z.string()).describe("A1 ranges written"),
  }),
);

export const updateCells = defineTool({
  name: "Sheets.UpdateCells",
  title: "Update cells",
  description: `Writes many cells of one sheet in one atomic request, replacing what they held. ${USER_ENTERED_NOTE} Cells must lie inside the sheet's grid (Sheets.GetSpreadsheetMetadata gives its size).`,
  input: inputSchema,
  output: outputSchema,
  hints: { readOnly: false, destructive: true, idempotent: true, openWorld: true },
  auth: googleAuth(DRIVE_FILE_SCOPE),
  async handler(input, context) {
    const cells = parseCellData(input.data, "data");
    if (!cells.length)
      throw new ToolError("invalid_input", "data holds no cells: give at least one row with one column.");
    const client = createGoogleClient(context);
    const spreadsheet = await client.spreadsheet(input.spreadsheet_id);
    const sheet = findSheet(spreadsheet, {
      idOrName: input.sheet_id_or_name,
      position: input.sheet_position,
    });
    for (const cell of cells) assertInGrid(sheet, cell.row, cell.column, cellName(cell.row, cell.column));
    const written = await client.writeBlocks(spreadsheet.id, cellBlocks(sheet.title, cells));
    return {
      spreadsheet_id: spreadsheet.id,
      sheet: sheetRecord(sheet),
      updated_cells: written.totalUpdatedCells ?? cells.length,
      updated_ranges: (written.responses ?? []).flatMap((response) => response.updatedRange ?? []),
    };
  },
});
