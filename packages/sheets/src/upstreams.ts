import type { RateBudget, UpstreamApi } from "@toolkits/core";

/** Where the Sheets API answers when no root URL is configured. */
const SHEETS_ORIGIN = "https://sheets.googleapis.com";
/** Where Drive and userinfo answer when no root URL is configured. */
export const WWW_ORIGIN = "https://www.googleapis.com";

/** Google's documented Sheets API limits: 60 reads and 60 writes a minute per user (per project). */
const PER_USER_MINUTE = { requests: 60, periodS: 60, per: "user" } as const;
export const SHEETS_READ_BUDGET: RateBudget = { name: "sheets-read", ...PER_USER_MINUTE };
export const SHEETS_WRITE_BUDGET: RateBudget = { name: "sheets-write", ...PER_USER_MINUTE };

/** The Google APIs the tools call; requests to Drive and userinfo count against no budget. */
export const GOOGLE_APIS: readonly UpstreamApi[] = [
  {
    title: "Google Sheets API v4",
    origins: { global: SHEETS_ORIGIN },
    budgets: [SHEETS_READ_BUDGET, SHEETS_WRITE_BUDGET],
  },
  { title: "Google Drive API v3 and OAuth2 userinfo", origins: { global: WWW_ORIGIN }, budgets: [] },
];
