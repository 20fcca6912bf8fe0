import { ToolError } from "@toolkits/core";
import { a1Range, parseColumn } from "./a1.js";

/** A value a cell data map may hold; Sheets parses it as if typed in the UI (USER_ENTERED). */
export type CellValue = string | number | boolean;

/** One cell of a cell data map, 1-based. */
export interface CellInput {
  row: number;
  column: number;
  value: CellValue;
}

const EXAMPLE = `{"1": {"A": "Name", "B": "Total"}, "2": {"A": "Ann", "B": 12.5}}`;
const ROW = /^[1-9]\d*$/;

/**
 * Parses a cell data map: a JSON object of row number → column letters → value.
 * @param parameter the parameter name used in messages (`data`).
 * @returns the cells sorted by row, then column.
 * @throws ToolError `invalid_input` naming the bad key or value and showing the format.
 */
export function parseCellData(json: string, parameter: string): CellInput[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    throw bad(`${parameter} is not valid JSON (${(error as Error).message})`);
  }
  if (!isObject(parsed)) throw bad(`${parameter} must be a JSON object of rows`);
  const cells: CellInput[] = [];
  // Column letters are case-insensitive, so `A` and `a` are one cell: which to write is refused,
  // never guessed. Keyed by cell, naming where each came from.
  const seen = new Map<string, string>();
  for (const [rowKey, columns] of Object.entries(parsed)) {
    const where = `${parameter}[${JSON.stringify(rowKey)}]`;
    if (!ROW.test(rowKey)) throw bad(`${where}: row keys must be whole numbers from 1`);
    if (!isObject(columns)) throw bad(`${where} must be an object of column letters to values`);
    for (const [columnKey, value] of Object.entries(columns)) {
      const at = `${where}[${JSON.stringify(columnKey)}]`;
      const column = parseColumn(columnKey, at);
      if (!isCellValue(value)) {
        throw bad(`${at} is ${JSON.stringify(value)}: values must be a string, number or boolean`);
      }
      const cell = `${Number(rowKey)},${column}`;
      const other = seen.get(cell);
      if (other) throw bad(`${other} and ${at} name the same cell; keep one`);
      seen.set(cell, at);
      cells.push({ row: Number(rowKey), column, value });
    }
  }
  return cells.sort((a, b) => a.row - b.row || a.column - b.column);
}

function bad(problem: string): ToolError {
  return new ToolError("invalid_input", `${problem}. Expected a JSON object like ${EXAMPLE}.`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isCellValue(value: unknown): value is CellValue {
  return (
    typeof value === "string" ||
    typeof value === "boolean" ||
    (typeof value === "number" && Number.isFinite(value))
  );
}

/** A filled rectangle to write: an A1 range and its rows of values. */
export interface CellBlock {
  range: string;
  values: CellValue[][];
}

/**
 * Groups cells into as few filled rectangles as simply found: runs of adjacent columns in a row,
 * then runs of rows with the same column span. Cells must be sorted by row, then column.
 */
export function cellBlocks(title: string, cells: readonly CellInput[]): CellBlock[] {
  const runs: { row: number; left: number; values: CellValue[] }[] = [];
  for (const cell of cells) {
    const last = runs.at(-1);
    if (last && last.row === cell.row && last.left + last.values.length === cell.column)
      last.values.push(cell.value);
    else runs.push({ row: cell.row, left: cell.column, values: [cell.value] });
  }
  const blocks: { top: number; left: number; width: number; rows: CellValue[][] }[] = [];
  for (const run of runs) {
    const last = blocks.at(-1);
    if (
      last &&
      last.top + last.rows.length === run.row &&
      last.left === run.left &&
      last.width === run.values.length
    ) {
      last.rows.push(run.values);
    } else blocks.push({ top: run.row, left: run.left, width: run.values.length, rows: [run.values] });
  }
  return blocks.map(({ top, left, width, rows }) => ({
    range: a1Range(title, top, left, top + rows.length - 1, left + width - 1),
    values: rows,
  }));
}

/** The grid a new sheet needs for `cells`: at least Sheets' default 1000 × 26. */
export function gridFor(cells: readonly CellInput[]): { rowCount: number; columnCount: number } {
  let rowCount = 1000;
  let columnCount = 26;
  for (const cell of cells) {
    rowCount = Math.max(rowCount, cell.row);
    columnCount = Math.max(columnCount, cell.column);
  }
  return { rowCount, columnCount };
}
