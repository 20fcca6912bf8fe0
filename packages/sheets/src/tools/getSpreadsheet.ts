import { defineTool, lazy, READ_ONLY_HINTS, ToolError } from "@toolkits/core";
import { z } from "zod";
import { a1Range, cellName, columnLetters, MAX_COLUMN, parseColumn } from "../a1.js";
import { createGoogleClient, type GridData } from "../client.js";
import { DRIVE_FILE_SCOPE, googleAuth } from "../scopes.js";
import { findSheet, gridText, sheetRecord } from "../spreadsheet.js";
import { MAX_CELLS, sheetIdOrName, sheetOutput, sheetPosition, spreadsheetId } from "./params.js";

/** Cap on the JSON size of `rows`, in bytes; whole rows past it are left for the next call. */
export const MAX_ROWS_BYTES = 60_000;

type Value = string | number | boolean;
const cellOutput = lazy(() =>
  z.object({
    value: z
      .union([z.string(), z.number(), z.boolean()])
      .optional()
      .describe("As entered; formulas as =… text"),
    formatted: z.string().optional().describe("As displayed, when it differs from value"),
    note: z.string().optional(),
  }),
);
type CellOutput = z.infer<ReturnType<typeof cellOutput>>;

const inputSchema = lazy(() =>
  z.object({
    spreadsheet_id: spreadsheetId(),
    sheet_position: sheetPosition(),
    sheet_id_or_name: sheetIdOrName(),
    start_row: z.number().int().min(1).max(MAX_CELLS).default(1).describe("First row, 1-based"),
    start_col: z
      .union([z.string(), z.number().int().min(1).max(MAX_COLUMN)])
      .default("A")
      .describe("First column: letters (C) or 1-based number (3)"),
    max_rows: z.number().int().min(1).max(1000).default(1000),
    max_cols: z.number().int().min(1).max(100).default(100),
  }),
);
const outputSchema = lazy(() =>
  z.object({
    spreadsheet_id: z.string(),
    sheet: sheetOutput().extend({ row_count: z.number().int(), column_count: z.number().int() }),
    range: z.string().optional().describe("The A1 range read"),
    rows: z.record(z.string(), z.record(z.string(), cellOutput())),
    truncated: z.boolean().optional(),
    next_start_row: z.number().int().optional().describe("Pass as start_row to read the rest"),
    note: z.string().optional(),
  }),
);

export const getSpreadsheet = defineTool({
  name: "Sheets.GetSpreadsheet",
  title: "Get spreadsheet cells",
  description:
    'Reads a window of one sheet\'s cells. Result rows maps row number (1-based) → column letter → {value, formatted, note}: value as entered (formulas as "=…" text, numbers and booleans typed), formatted as displayed (only when it differs), note when set; empty cells are left out. A result over 60 kB stops at a whole row with truncated: true and next_start_row to continue from.',
  input: inputSchema,
  output: outputSchema,
  hints: READ_ONLY_HINTS,
  auth: googleAuth(DRIVE_FILE_SCOPE),
  async handler(input, context) {
    const startColumn = parseStartColumn(input.start_col);
    const client = createGoogleClient(context);
    const spreadsheet = await client.spreadsheet(input.spreadsheet_id);
    const sheet = findSheet(spreadsheet, {
      idOrName: input.sheet_id_or_name,
      position: input.sheet_position,
    });
    const base = {
      spreadsheet_id: spreadsheet.id,
      sheet: { ...sheetRecord(sheet), row_count: sheet.rows, column_count: sheet.columns },
    };
    if (sheet.type !== "GRID") {
      throw new ToolError(
        "invalid_input",
        `Sheet ${JSON.stringify(sheet.title)} is a ${sheet.type} sheet and has no cells.`,
      );
    }
    if (input.start_row > sheet.rows || startColumn > sheet.columns) {
      const start = cellName(input.start_row, startColumn);
      return { ...base, rows: {}, note: `${start} is beyond the grid of ${gridText(sheet)}.` };
    }
    const bottom = Math.min(input.start_row + input.max_rows - 1, sheet.rows);
    const right = Math.min(startColumn + input.max_cols - 1, sheet.columns);
    const range = a1Range(sheet.title, input.start_row, startColumn, bottom, right);
    const grid = await client.readGrid(spreadsheet.id, sheet.id, range);
    // Leave room under the host's cap for the fields around the rows.
    const budget = Math.min(MAX_ROWS_BYTES, (context.maxResultBytes ?? Number.POSITIVE_INFINITY) - 2_000);
    return { ...base, range, ...capRows(sparseRows(grid), budget) };
  },
});

/**
 * `start_col` as a 1-based column number: letters, a number, or a number in a string ("3").
 * @throws ToolError `invalid_input` for 0, negatives or mixed text like "A2".
 */
function parseStartColumn(startColumn: string | number): number {
  if (typeof startColumn === "number") return startColumn;
  const text = startColumn.trim();
  if (/^\d+$/.test(text) && Number(text) >= 1) return Number(text);
  return parseColumn(text, "start_col (letters or a 1-based number)");
}

/** GridData as row number → column letters → cell, leaving out empty cells and rows. */
function sparseRows(grid: GridData | undefined): [number, Record<string, CellOutput>][] {
  const top = (grid?.startRow ?? 0) + 1;
  const left = (grid?.startColumn ?? 0) + 1;
  const rows: [number, Record<string, CellOutput>][] = [];
  for (const [rowOffset, rowData] of (grid?.rowData ?? []).entries()) {
    const cells: Record<string, CellOutput> = {};
    for (const [columnOffset, cell] of (rowData.values ?? []).entries()) {
      const entered = cell.userEnteredValue;
      const value: Value | undefined =
        entered?.formulaValue ??
        entered?.numberValue ??
        entered?.boolValue ??
        entered?.stringValue ??
        undefined;
      const formatted = cell.formattedValue ?? undefined;
      const record: CellOutput = { value };
      if (formatted !== undefined && formatted !== plainText(value)) record.formatted = formatted;
      if (cell.note) record.note = cell.note;
      if (value !== undefined || record.formatted !== undefined || record.note) {
        cells[columnLetters(left + columnOffset)] = record;
      }
    }
    if (Object.keys(cells).length) rows.push([top + rowOffset, cells]);
  }
  return rows;
}

/** How Sheets shows a value in the default format, to drop `formatted` when it adds nothing. */
function plainText(value: Value | undefined): string | undefined {
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
  return value === undefined ? undefined : String(value);
}

/**
 * Keeps whole rows while their JSON fits `maxBytes` (MAX_ROWS_BYTES or the host's smaller cap;
 * always at least one row).
 */
function capRows(
  rows: [number, Record<string, CellOutput>][],
  maxBytes: number,
): {
  rows: Record<string, Record<string, CellOutput>>;
  truncated?: true;
  next_start_row?: number;
} {
  const kept: Record<string, Record<string, CellOutput>> = {};
  let bytes = 2;
  for (const [index, [number, cells]] of rows.entries()) {
    bytes += Buffer.byteLength(JSON.stringify(cells)) + String(number).length + 4;
    if (bytes > maxBytes && index > 0) return { rows: kept, truncated: true, next_start_row: number };
    kept[number] = cells;
  }
  return { rows: kept };
}
