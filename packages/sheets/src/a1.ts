import { ToolError } from "@toolkits/core";

/** The last column Sheets allows, ZZZ. */
export const MAX_COLUMN = 18_278;

const LETTERS = /^[A-Za-z]{1,3}$/;

/** Column letters to a 1-based number: `A` → 1, `AA` → 27. Case-insensitive; no validation. */
export function columnNumber(letters: string): number {
  let number = 0;
  for (const char of letters.toUpperCase()) number = number * 26 + (char.charCodeAt(0) - 64);
  return number;
}

/** A 1-based column number to letters: 1 → `A`, 27 → `AA`. */
export function columnLetters(number: number): string {
  let letters = "";
  for (let rest = number; rest > 0; rest = Math.floor((rest - 1) / 26)) {
    letters = String.fromCharCode(65 + ((rest - 1) % 26)) + letters;
  }
  return letters;
}

/**
 * Parses column letters (`A` … `ZZZ`, any case) given as `parameter`.
 * @returns the 1-based column number.
 * @throws ToolError `invalid_input` naming the parameter for anything else (`A2`, `0`, `A-B`).
 */
export function parseColumn(letters: string, parameter: string): number {
  if (!LETTERS.test(letters)) {
    throw new ToolError(
      "invalid_input",
      `${parameter} must be column letters A to ZZZ (like "A", "F" or "AZ"), not ${JSON.stringify(letters)}.`,
    );
  }
  return columnNumber(letters);
}

/**
 * A sheet title quoted for A1 notation, embedded apostrophes doubled: `Jon's data` → `'Jon''s data'`.
 * Always quoted, since an unquoted title can read as a cell (`A1`) or a named range.
 */
export function quoteSheetTitle(title: string): string {
  return `'${title.replaceAll("'", "''")}'`;
}

/** One cell in A1 notation, 1-based: (7, 3) → `C7`. */
export function cellName(row: number, column: number): string {
  return `${columnLetters(column)}${row}`;
}

/** A rectangle on a named sheet in A1 notation, 1-based and inclusive: `'Sheet1'!B2:D9`. */
export function a1Range(title: string, top: number, left: number, bottom = top, right = left): string {
  const start = cellName(top, left);
  const end = cellName(bottom, right);
  return `${quoteSheetTitle(title)}!${start === end ? start : `${start}:${end}`}`;
}
