import { lazy } from "@toolkits/core";
import { z } from "zod";

// Parameter schemas several tools share, so names, bounds and wording stay identical. Each is built
// on first use (`lazy`), with the schemas of the first tool called, not as the toolkit loads.

/** Sheets holds at most 10 million cells per spreadsheet, so no row or sheet position is higher. */
export const MAX_CELLS = 10_000_000;

export const spreadsheetId = lazy(() =>
  z
    .string()
    .min(1)
    .refine(
      (id) => id.trim() !== "" && !/^\.{1,2}$/.test(id),
      "must be the id from its URL, not blank, . or ..",
    )
    .describe("Spreadsheet id (the part after /d/ in its URL; Sheets.SearchSpreadsheets finds it)")
    // Mirrored by 2026-07-28 HTTP clients into an `Mcp-Param-Spreadsheet-Id` header (SEP-2243), so a
    // gateway can audit or route by file without reading bodies.
    .meta({ "x-mcp-header": "Spreadsheet-Id" }),
);

export const sheetPosition = lazy(() =>
  z.number().int().min(1).max(MAX_CELLS).default(1).describe("Sheet by tab position, 1 = leftmost"),
);

export const sheetIdOrName = lazy(() =>
  z.string().min(1).optional().describe("Sheet title or numeric sheet id; overrides sheet_position"),
);

export const row = lazy(() => z.number().int().min(1).max(MAX_CELLS).describe("Row number, 1-based"));

export const column = lazy(() => z.string().describe("Column letters, e.g. A or AZ"));

export const cellData = lazy(() =>
  z
    .string()
    .describe(
      'Cell data map, a JSON string {"<row>": {"<COLUMN>": value}}: rows 1-based, columns letters, values string, number or boolean. Example: {"1":{"A":"Item","B":"Qty"},"2":{"A":"Pens","B":3}}',
    ),
);

/** Output record of the sheet a tool acted on. */
export const sheetOutput = lazy(() =>
  z.object({
    id: z.number().int().describe("Numeric sheet id"),
    title: z.string(),
    position: z.number().int().describe("1 = leftmost"),
  }),
);

/** Sentence every writing tool's description carries about how Sheets parses values. */
export const USER_ENTERED_NOTE =
  'Values are parsed as if typed in Sheets (USER_ENTERED): "12" becomes a number, "TRUE" a boolean, "=SUM(A1:A3)" a formula that Sheets runs, so never pass untrusted text starting with = + - @ (formula injection).';
