import type { AnyToolDefinition, Toolkit } from "@toolkits/core";
import { addNoteToCell } from "./tools/addNoteToCell.js";
import { createSpreadsheet } from "./tools/createSpreadsheet.js";
import { generateFilePickerUrl } from "./tools/generateFilePickerUrl.js";
import { getFilePickerStatus } from "./tools/getFilePickerStatus.js";
import { getSpreadsheet } from "./tools/getSpreadsheet.js";
import { getSpreadsheetMetadata } from "./tools/getSpreadsheetMetadata.js";
import { searchSpreadsheets } from "./tools/searchSpreadsheets.js";
import { updateCells } from "./tools/updateCells.js";
import { whoAmI } from "./tools/whoAmI.js";
import { writeToCell } from "./tools/writeToCell.js";

export { a1Range, columnLetters, columnNumber, quoteSheetTitle } from "./a1.js";
export { type CellInput, type CellValue, parseCellData } from "./cells.js";
export {
  createGoogleClient,
  type GoogleClient,
  type GoogleClientOptions,
  ROOT_URL_SETTING,
  type UserInfo,
} from "./client.js";
export { ORDER_BY_VALUES, queryLiteral, spreadsheetQuery } from "./drive.js";
export { handlePickerRequest, PICKER_ID, PICKER_PATH } from "./picker/handler.js";

import { handlePickerRequest, PICKER_PATH } from "./picker/handler.js";
import { GOOGLE_APIS } from "./upstreams.js";

export { PICKER_TTL_MS } from "./picker/session.js";
export {
  DRIVE_FILE_SCOPE,
  GOOGLE,
  googleAuth,
  googleScopes,
  USERINFO_EMAIL_SCOPE,
  USERINFO_PROFILE_SCOPE,
} from "./scopes.js";
export { findSheet, type SheetChoice, type SheetInfo, type SpreadsheetInfo } from "./spreadsheet.js";
export { PICKER_SETTINGS } from "./tools/generateFilePickerUrl.js";
export { MAX_ROWS_BYTES } from "./tools/getSpreadsheet.js";
export { GOOGLE_APIS, SHEETS_READ_BUDGET, SHEETS_WRITE_BUDGET } from "./upstreams.js";
export {
  addNoteToCell,
  createSpreadsheet,
  generateFilePickerUrl,
  getFilePickerStatus,
  getSpreadsheet,
  getSpreadsheetMetadata,
  searchSpreadsheets,
  updateCells,
  whoAmI,
  writeToCell,
};

/**
 * The 9 `Sheets.*` tools, in catalogue order. Each builds its zod schemas (`input`, `output`) on
 * first use, so importing the toolkit builds none.
 */
export const sheetsTools: readonly AnyToolDefinition[] = [
  createSpreadsheet,
  getSpreadsheet,
  getSpreadsheetMetadata,
  searchSpreadsheets,
  writeToCell,
  updateCells,
  addNoteToCell,
  whoAmI,
  generateFilePickerUrl,
];

/**
 * The sheets toolkit as a host composes it. Tools ask the host for a Google access token
 * (each declares its scopes once, with `googleAuth`; `googleScopes(tools)` gives the union to request).
 * Its `pages` serve the file picker; the host sets `TOOLKITS_PUBLIC_URL` to where they are served.
 */
export const sheetsToolkit: Toolkit = {
  id: "sheets",
  title: "Sheets",
  tools: sheetsTools,
  setup:
    "Set GOOGLE_ACCESS_TOKEN to a Google OAuth access token with the drive.file scope (Sheets.WhoAmI also needs userinfo.profile and userinfo.email), and GOOGLE_OAUTH_CLIENT_ID, GOOGLE_PICKER_API_KEY and TOOLKITS_PUBLIC_URL for the file picker.",
  upstreams: GOOGLE_APIS,
  sandbox: async () => (await import("./sandbox/index.js")).sandbox(),
  pages: handlePickerRequest,
  pagesPath: PICKER_PATH,
};
