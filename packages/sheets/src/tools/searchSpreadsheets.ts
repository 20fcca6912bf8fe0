import { defineTool, lazy, READ_ONLY_HINTS, ToolError, tokenPage, tokenPageShape } from "@toolkits/core";
import { z } from "zod";
import { createGoogleClient, type SpreadsheetSearch } from "../client.js";
import { ORDER_BY_VALUES, spreadsheetQuery } from "../drive.js";
import { DRIVE_FILE_SCOPE, googleAuth } from "../scopes.js";

const keywords = lazy(() => z.array(z.string().min(1)).default([]));

const inputSchema = lazy(() =>
  z.object({
    spreadsheet_contains: keywords().describe("Keywords the title must all contain"),
    spreadsheet_not_contains: keywords().describe("Keywords the title must not contain"),
    search_only_in_shared_drive_id: z.string().min(1).optional().describe("Search only this shared drive"),
    include_shared_drives: z
      .boolean()
      .default(false)
      .describe("Also search shared drives, not only the user's own"),
    include_organization_domain_spreadsheets: z
      .boolean()
      .default(false)
      .describe("Search files shared across the organization's domain"),
    order_by: z
      .enum(ORDER_BY_VALUES)
      .default("modifiedTime desc")
      .describe("Sort key; ' desc' for descending"),
    limit: z.number().int().min(1).max(50).default(10),
    pagination_token: z.string().min(1).optional().describe("next_page_token of the previous page"),
  }),
);
const outputSchema = lazy(() =>
  z.object({
    spreadsheets: z.array(
      z.object({
        id: z.string(),
        title: z.string(),
        url: z.string(),
        modified_time: z.string().describe("ISO 8601"),
      }),
    ),
    incomplete_search: z
      .boolean()
      .optional()
      .describe("Drive could not search every corpus; results may be partial"),
    ...tokenPageShape,
  }),
);

export const searchSpreadsheets = defineTool({
  name: "Sheets.SearchSpreadsheets",
  title: "Search spreadsheets",
  description:
    "Finds spreadsheets by title keywords (case-insensitive), never trashed ones; most recently modified first by default. Sees only files this app created or the user picked (Sheets.GenerateFilePickerUrl grants more). Continue with pagination_token = next_page_token.",
  input: inputSchema,
  output: outputSchema,
  hints: READ_ONLY_HINTS,
  auth: googleAuth(DRIVE_FILE_SCOPE),
  async handler(input, context) {
    const driveId = input.search_only_in_shared_drive_id;
    if (driveId && input.include_organization_domain_spreadsheets) {
      throw new ToolError(
        "invalid_input",
        "search_only_in_shared_drive_id and include_organization_domain_spreadsheets cannot be combined: give one.",
      );
    }
    const search: SpreadsheetSearch = {
      q: spreadsheetQuery(input.spreadsheet_contains, input.spreadsheet_not_contains),
      orderBy: input.order_by,
      // Exactly the page asked for, so Drive's token resumes right after the last result returned.
      pageSize: input.limit,
      pageToken: input.pagination_token,
    };
    if (driveId || input.include_shared_drives || input.include_organization_domain_spreadsheets) {
      Object.assign(search, { supportsAllDrives: true, includeItemsFromAllDrives: true });
    }
    if (driveId) Object.assign(search, { corpora: "drive", driveId });
    else if (input.include_organization_domain_spreadsheets) search.corpora = "domain";
    const page = await createGoogleClient(context).searchFiles(search);
    return {
      spreadsheets: (page.files ?? []).map((file) => ({
        id: file.id ?? "",
        title: file.name ?? "",
        url: file.webViewLink ?? `https://docs.google.com/spreadsheets/d/${file.id}/edit`,
        modified_time: file.modifiedTime ?? "",
      })),
      incomplete_search: page.incompleteSearch || undefined,
      ...tokenPage(page.nextPageToken),
    };
  },
});
