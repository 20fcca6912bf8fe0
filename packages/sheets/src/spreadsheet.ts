import { ToolError } from "@toolkits/core";
import { columnLetters } from "./a1.js";

/** One sheet (tab) of a spreadsheet. */
export interface SheetInfo {
  /** Sheets' numeric `sheetId` (stable across renames and moves). */
  id: number;
  title: string;
  /** 1-based tab position; 1 is the leftmost sheet. */
  position: number;
  /** Grid size: rows and columns the sheet has, filled or not. */
  rows: number;
  columns: number;
  hidden: boolean;
  /** `GRID`, `OBJECT` (a chart sheet) or `DATA_SOURCE`. */
  type: string;
}

/** A spreadsheet's metadata, no cell data. */
export interface SpreadsheetInfo {
  id: string;
  title: string;
  url: string;
  locale?: string;
  timeZone?: string;
  /** In tab order. */
  sheets: SheetInfo[];
}

/** How a tool names a sheet: `idOrName` (a title or numeric id) wins over `position` (1-based). */
export interface SheetChoice {
  idOrName?: string;
  position?: number;
}

/**
 * Picks one sheet. `idOrName` matches, in order: an exact title, a numeric sheet id, a title
 * ignoring case (a tab titled "23" therefore shadows sheet id 23). Otherwise `position` (default 1).
 * @throws ToolError `not_found` listing the sheets that exist.
 */
export function findSheet(spreadsheet: SpreadsheetInfo, choice: SheetChoice): SheetInfo {
  const { sheets } = spreadsheet;
  const wanted = choice.idOrName?.trim();
  if (wanted) {
    const found =
      sheets.find((sheet) => sheet.title === wanted) ??
      (/^\d+$/.test(wanted) ? sheets.find((sheet) => String(sheet.id) === wanted) : undefined) ??
      sheets.find((sheet) => sheet.title.toLowerCase() === wanted.toLowerCase());
    if (found) return found;
    throw noSuchSheet(spreadsheet, `no sheet titled or with id ${JSON.stringify(wanted)}`);
  }
  const position = choice.position ?? 1;
  const found = sheets[position - 1];
  if (found) return found;
  throw noSuchSheet(spreadsheet, `no sheet at position ${position} (it has ${sheets.length})`);
}

function noSuchSheet(spreadsheet: SpreadsheetInfo, what: string): ToolError {
  const list = spreadsheet.sheets
    .map((sheet) => `${JSON.stringify(sheet.title)} (id ${sheet.id}, position ${sheet.position})`)
    .join(", ");
  return new ToolError(
    "not_found",
    `Spreadsheet ${JSON.stringify(spreadsheet.title)} has ${what}. Its sheets: ${list}.`,
  );
}

/**
 * Refuses a cell outside the sheet's grid before anything is written (Sheets would answer
 * "exceeds grid limits").
 * @throws ToolError `invalid_input` giving the grid size.
 */
export function assertInGrid(sheet: SheetInfo, row: number, column: number, cell: string): void {
  if (row <= sheet.rows && column <= sheet.columns) return;
  throw new ToolError("invalid_input", `Cell ${cell} is outside ${gridText(sheet)}. Write inside the grid.`);
}

/** `sheet "Data" (1000 rows, columns A to Z)`. */
export function gridText(sheet: SheetInfo): string {
  return `sheet ${JSON.stringify(sheet.title)} (${sheet.rows} rows, columns A to ${columnLetters(sheet.columns)})`;
}

/** The compact sheet record tools return. */
export function sheetRecord(sheet: SheetInfo): { id: number; title: string; position: number } {
  return { id: sheet.id, title: sheet.title, position: sheet.position };
}
