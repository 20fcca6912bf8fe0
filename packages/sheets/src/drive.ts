/** Drive's MIME type of a Google Sheets file. */
export const SPREADSHEET_MIME_TYPE = "application/vnd.google-apps.spreadsheet";

/** Drive's `orderBy` keys; each sorts ascending unless followed by ` desc`. */
export const ORDER_KEYS = [
  "createdTime",
  "folder",
  "modifiedByMeTime",
  "modifiedTime",
  "name",
  "name_natural",
  "quotaBytesUsed",
  "recency",
  "sharedWithMeTime",
  "starred",
  "viewedByMeTime",
] as const;

/** Every `order_by` value the search tool accepts: each key, ascending and descending. */
export const ORDER_BY_VALUES = ORDER_KEYS.flatMap((key) => [key, `${key} desc`]) as [string, ...string[]];

/** A string literal for a Drive query: backslashes and apostrophes escaped, then single-quoted. */
export function queryLiteral(text: string): string {
  return `'${text.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
}

/**
 * The Drive `q` for spreadsheets (never trashed) whose title contains every `contains` keyword
 * and none of the `notContains` ones. Titles only: `fullText` would match cell contents too.
 */
export function spreadsheetQuery(contains: readonly string[], notContains: readonly string[]): string {
  return [
    `mimeType = ${queryLiteral(SPREADSHEET_MIME_TYPE)}`,
    "trashed = false",
    ...contains.map((keyword) => `name contains ${queryLiteral(keyword)}`),
    ...notContains.map((keyword) => `not name contains ${queryLiteral(keyword)}`),
  ].join(" and ");
}
