import type { RateBudget, UpstreamApi } from "@toolkits/core";

/** Where the Sheets API answers when no root URL is configured. */
const SHEETS_ORIGIN = "https://sheets.googleapis.com";
/** Where Drive and userinfo answer when no root URL is configured. */
export const WWW_ORIGIN = "https://www.googleapis.com";

/** Google's documented Sheets API limit on reads: 60 a minute per user (per project). */
export const SHEETS_READ_BUDGET: RateBudget = Object.freeze({
  name: "sheets-read",
  requests: 60,
  periodS: 60,
  per: "user",
});

/** Google's documented Sheets API limit on writes: 60 a minute per user (per project). */
export const SHEETS_WRITE_BUDGET: RateBudget = Object.freeze({
  name: "sheets-write",
  requests: 60,
  periodS: 60,
  per: "user",
});

/** The Google APIs the tools call; requests to Drive and userinfo count against no budget. */
export const GOOGLE_APIS: readonly UpstreamApi[] = Object.freeze([
  {
    title: "Google Sheets API v4",
    origins: { global: SHEETS_ORIGIN },
    budgets: [SHEETS_READ_BUDGET, SHEETS_WRITE_BUDGET],
  },
  { title: "Google Drive API v3 and OAuth2 userinfo", origins: { global: WWW_ORIGIN }, budgets: [] },
]);
