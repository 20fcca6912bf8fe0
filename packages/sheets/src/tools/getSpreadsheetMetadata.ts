import { defineTool, lazy, READ_ONLY_HINTS } from "@toolkits/core";
import { z } from "zod";
import { createGoogleClient } from "../client.js";
import { DRIVE_FILE_SCOPE, googleAuth } from "../scopes.js";
import { spreadsheetId } from "./params.js";

const inputSchema = lazy(() => z.object({ spreadsheet_id: spreadsheetId() }));
const outputSchema = lazy(() =>
  z.object({
    spreadsheet_id: z.string(),
    title: z.string(),
    url: z.string(),
    locale: z.string().optional(),
    time_zone: z.string().optional(),
    sheets: z.array(
      z.object({
        id: z.number().int(),
        title: z.string(),
        position: z.number().int().describe("1 = leftmost"),
        row_count: z.number().int(),
        column_count: z.number().int(),
        hidden: z.boolean(),
        type: z.string().describe("GRID, OBJECT (chart) or DATA_SOURCE"),
        url: z.string(),
      }),
    ),
  }),
);

export const getSpreadsheetMetadata = defineTool({
  name: "Sheets.GetSpreadsheetMetadata",
  title: "Get spreadsheet metadata",
  description:
    "Returns a spreadsheet's title, URL and sheets (id, title, position with 1 = leftmost, row and column counts, hidden, type); no cell data.",
  input: inputSchema,
  output: outputSchema,
  hints: READ_ONLY_HINTS,
  auth: googleAuth(DRIVE_FILE_SCOPE),
  async handler(input, context) {
    const spreadsheet = await createGoogleClient(context).spreadsheet(input.spreadsheet_id);
    return {
      spreadsheet_id: spreadsheet.id,
      title: spreadsheet.title,
      url: spreadsheet.url,
      locale: spreadsheet.locale,
      time_zone: spreadsheet.timeZone,
      sheets: spreadsheet.sheets.map((sheet) => ({
        id: sheet.id,
        title: sheet.title,
        position: sheet.position,
        row_count: sheet.rows,
        column_count: sheet.columns,
        hidden: sheet.hidden,
        type: sheet.type,
        url: `${spreadsheet.url.split("#")[0]}#gid=${sheet.id}`,
      })),
    };
  },
});
