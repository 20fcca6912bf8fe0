import { HttpResponse, http } from "msw";
import { maskMentions } from "./fields.js";
import {
  answer,
  fieldMask,
  GoogleFailure,
  googleError,
  jsonBody,
  masked,
  rejectUnauthorized,
} from "./google.js";
import {
  cellKey,
  type FakeGoogle,
  type FakeSheet,
  type FakeSpreadsheet,
  newSheet,
  newSpreadsheetId,
  SPREADSHEET_MIME,
  spreadsheetUrl,
} from "./state.js";
import { type Computed, cellRef, computed, type FakeCell, formatted, userEntered } from "./values.js";

export const SHEETS_ROOT = "https://sheets.googleapis.com";

/** A rectangle of one sheet, 0-based, end exclusive. */
interface Window {
  sheet: FakeSheet;
  top: number;
  left: number;
  bottom: number;
  right: number;
}

/** msw handlers for the Sheets v4 methods the tools call, over `state`. */
export function sheetsHandlers(state: FakeGoogle) {
  return [
    http.all(`${SHEETS_ROOT}/*`, ({ request }) =>
      answer(async () => rejectUnauthorized(request) ?? (await route(state, request))),
    ),
  ];
}

async function route(state: FakeGoogle, request: Request): Promise<Response> {
  const url = new URL(request.url);
  const { pathname } = url;
  const method = request.method;
  if (method === "POST" && pathname === "/v4/spreadsheets") return create(state, url, request);
  const match = /^\/v4\/spreadsheets\/([^/:]+)(:batchUpdate|\/values:batchUpdate|\/values\/([^/:]+))?$/.exec(
    pathname,
  );
  const id = match?.[1];
  const suffix = match?.[2];
  const range = match?.[3];
  if (id !== undefined) {
    const book = () => spreadsheet(state, decodeURIComponent(id));
    if (method === "GET" && suffix === undefined) return get(book(), url);
    if (method === "POST" && suffix === ":batchUpdate") return batchUpdate(book(), request);
    if (method === "POST" && suffix === "/values:batchUpdate") return batchUpdateValues(book(), request);
    if (method === "PUT" && range !== undefined)
      return updateValues(book(), decodeURIComponent(range), url, request);
  }
  return googleError(404, `Method not found: ${method} ${pathname}`);
}

function spreadsheet(state: FakeGoogle, id: string): FakeSpreadsheet {
  const book = state.spreadsheets.get(id);
  if (!book) throw new GoogleFailure(404, "Requested entity was not found.");
  if (!book.file.granted) throw new GoogleFailure(403, "The caller does not have permission");
  return book;
}

// spreadsheets.get: grid data for `ranges` when includeGridData is set or the field mask selects data.
function get(book: FakeSpreadsheet, url: URL): Response {
  const ranges = url.searchParams.getAll("ranges");
  const mask = fieldMask(url);
  // As in Sheets, a field mask overrides includeGridData.
  const withData = mask ? maskMentions(mask, "data") : url.searchParams.get("includeGridData") === "true";
  const windows = ranges.map((range) => parseRange(book, range));
  const sheets = book.sheets
    .filter((sheet) => !ranges.length || windows.some((window) => window.sheet === sheet))
    .map((sheet) => ({
      properties: sheetProperties(book, sheet),
      data: withData
        ? (ranges.length ? windows.filter((window) => window.sheet === sheet) : [whole(sheet)]).map(gridData)
        : undefined,
    }));
  return masked({ ...spreadsheetResource(book), sheets }, url);
}

function spreadsheetResource(book: FakeSpreadsheet) {
  return {
    spreadsheetId: book.file.id,
    properties: {
      title: book.file.name,
      locale: book.locale,
      autoRecalc: "ON_CHANGE",
      timeZone: book.timeZone,
    },
    spreadsheetUrl: spreadsheetUrl(book.file.id),
  };
}

function sheetProperties(book: FakeSpreadsheet, sheet: FakeSheet) {
  return {
    sheetId: sheet.sheetId,
    title: sheet.title,
    index: book.sheets.indexOf(sheet),
    sheetType: "GRID",
    gridProperties: { rowCount: sheet.rowCount, columnCount: sheet.columnCount },
    hidden: sheet.hidden || undefined,
  };
}

const whole = (sheet: FakeSheet): Window => ({
  sheet,
  top: 0,
  left: 0,
  bottom: sheet.rowCount,
  right: sheet.columnCount,
});

/** GridData as Sheets sends it: offsets omitted when 0, trailing empty rows and cells dropped. */
function gridData(window: Window) {
  const { sheet, top, left } = window;
  const rowData: { values?: Record<string, unknown>[] }[] = [];
  for (let row = top; row < window.bottom; row++) {
    const values: Record<string, unknown>[] = [];
    for (let column = left; column < window.right; column++) values.push(cellData(sheet, row, column));
    while (values.length && Object.keys(values.at(-1) ?? {}).length === 0) values.pop();
    rowData.push(values.length ? { values } : {});
  }
  while (rowData.length && !rowData.at(-1)?.values) rowData.pop();
  return { startRow: top || undefined, startColumn: left || undefined, rowData };
}

function cellData(sheet: FakeSheet, row: number, column: number): Record<string, unknown> {
  const cell = sheet.cells.get(cellKey(row, column));
  if (!cell) return {};
  const value = evaluate(sheet, cell);
  return {
    userEnteredValue: cell.entered,
    effectiveValue: value === undefined ? undefined : extendedValue(value),
    formattedValue: value === undefined ? undefined : formatted(value, cell.percent),
    userEnteredFormat: cell.percent ? { numberFormat: { type: "PERCENT", pattern: "0%" } } : undefined,
    note: cell.note,
  };
}

function evaluate(sheet: FakeSheet, cell: FakeCell): Computed | undefined {
  const lookup = (row: number, column: number, depth: number): Computed | undefined => {
    const other = sheet.cells.get(cellKey(row, column));
    return other ? computed(other, lookup, depth) : undefined;
  };
  return computed(cell, lookup);
}

function extendedValue(value: Computed) {
  if (typeof value === "number") return { numberValue: value };
  if (typeof value === "boolean") return { boolValue: value };
  if (typeof value === "string") return { stringValue: value };
  return { errorValue: { type: "ERROR", message: value.error } };
}

const QUOTED = /^'((?:[^']|'')+)'!(.+)$/;
const PLAIN = /^([^'!]+)!(.+)$/;

/**
 * Parses an A1 range the way Sheets does for what the tools send: `'Title'!A1:B2`, `Title!A1`,
 * `'Title'` (the whole sheet) or `A1:B2` (the first sheet).
 * @throws GoogleFailure 400 "Unable to parse range" or "exceeds grid limits".
 */
function parseRange(book: FakeSpreadsheet, text: string): Window {
  const quoted = QUOTED.exec(text);
  const plain = quoted ? undefined : PLAIN.exec(text);
  let title = quoted?.[1]?.replaceAll("''", "'") ?? plain?.[1];
  let cells = quoted?.[2] ?? plain?.[2];
  if (title === undefined) {
    const onlyTitle = /^'((?:[^']|'')+)'$/.exec(text)?.[1]?.replaceAll("''", "'");
    if (onlyTitle !== undefined || !/^[A-Z]+\d+(:[A-Z]+\d+)?$/i.test(text)) title = onlyTitle ?? text;
    else cells = text;
  }
  const sheet =
    title === undefined ? book.sheets[0] : book.sheets.find((candidate) => candidate.title === title);
  if (!sheet) throw new GoogleFailure(400, `Unable to parse range: ${text}`);
  if (cells === undefined) return whole(sheet);
  const [first, last = first] = cells.split(":");
  const from = cellRef(first ?? "");
  const to = cellRef(last ?? "");
  if (!from || !to || to.row < from.row || to.column < from.column) {
    throw new GoogleFailure(400, `Unable to parse range: ${text}`);
  }
  const window = { sheet, top: from.row, left: from.column, bottom: to.row + 1, right: to.column + 1 };
  assertInGrid(window, text);
  return window;
}

function assertInGrid(window: Window, text: string): void {
  const { sheet } = window;
  if (window.bottom <= sheet.rowCount && window.right <= sheet.columnCount) return;
  throw new GoogleFailure(
    400,
    `Range (${text}) exceeds grid limits. Max rows: ${sheet.rowCount}, max columns: ${sheet.columnCount}`,
  );
}

/** A range as Sheets reports it: the title quoted only when it needs to be. */
function rangeName(window: Window): string {
  const { title } = window.sheet;
  const bare = /^[A-Za-z_][A-Za-z0-9_]*$/.test(title) && !/^[A-Za-z]{1,3}\d+$/.test(title);
  const name = bare ? title : `'${title.replaceAll("'", "''")}'`;
  const start = cellName(window.top, window.left);
  const end = cellName(window.bottom - 1, window.right - 1);
  return `${name}!${start === end ? start : `${start}:${end}`}`;
}

// The fake keeps its own A1 code rather than the client's, so a client A1 bug cannot hide behind it.
function cellName(row: number, column: number): string {
  let letters = "";
  for (let rest = column + 1; rest > 0; rest = Math.floor((rest - 1) / 26)) {
    letters = String.fromCharCode(65 + ((rest - 1) % 26)) + letters;
  }
  return `${letters}${row + 1}`;
}

interface ValueWrite {
  window: Window;
  values: unknown[][];
  raw: boolean;
}

/**
 * Checks one ValueRange write against its range (a one-cell range anchors any size of data) and the grid.
 * @throws GoogleFailure 400 as Sheets words it.
 */
function planWrite(
  book: FakeSpreadsheet,
  range: unknown,
  body: Record<string, unknown>,
  raw: boolean,
): ValueWrite {
  if (typeof range !== "string") throw new GoogleFailure(400, "Invalid data[0]: range is required.");
  if ((body.majorDimension ?? "ROWS") !== "ROWS") {
    throw new GoogleFailure(400, "The sandbox supports majorDimension ROWS only.");
  }
  const values = body.values;
  if (!Array.isArray(values) || !values.every(Array.isArray)) {
    throw new GoogleFailure(400, "Invalid value at 'data.values': expected a list of rows.");
  }
  const anchor = parseRange(book, range);
  const height = values.length;
  const width = Math.max(0, ...values.map((row) => row.length));
  const single = anchor.bottom - anchor.top === 1 && anchor.right - anchor.left === 1;
  if (!single && (height > anchor.bottom - anchor.top || width > anchor.right - anchor.left)) {
    throw new GoogleFailure(
      400,
      `Requested writing within range [${range}], but tried writing ${height} rows of ${width} columns.`,
    );
  }
  const window = {
    ...anchor,
    bottom: anchor.top + Math.max(height, 1),
    right: anchor.left + Math.max(width, 1),
  };
  assertInGrid(window, rangeName(window));
  return { window, values: values as unknown[][], raw };
}

/** Applies a planned write; null leaves a cell alone, "" clears its value (a note stays). */
function applyWrite(book: FakeSpreadsheet, { window, values, raw }: ValueWrite) {
  let cells = 0;
  for (const [rowOffset, row] of values.entries()) {
    for (const [columnOffset, value] of row.entries()) {
      if (value === null) continue;
      cells++;
      const key = cellKey(window.top + rowOffset, window.left + columnOffset);
      const note = window.sheet.cells.get(key)?.note;
      const cell: FakeCell = { ...userEntered(value, raw), note };
      if (cell.entered || cell.note) window.sheet.cells.set(key, cell);
      else window.sheet.cells.delete(key);
    }
  }
  book.file.modifiedTime = new Date().toISOString();
  return {
    spreadsheetId: book.file.id,
    updatedRange: rangeName(window),
    updatedRows: values.length,
    updatedColumns: Math.max(0, ...values.map((row) => row.length)),
    updatedCells: cells,
  };
}

function inputOption(value: unknown): boolean {
  if (value === "RAW") return true;
  if (value === "USER_ENTERED") return false;
  throw new GoogleFailure(400, "Invalid valueInputOption: INPUT_VALUE_OPTION_UNSPECIFIED");
}

// spreadsheets.values.update
async function updateValues(
  book: FakeSpreadsheet,
  range: string,
  url: URL,
  request: Request,
): Promise<Response> {
  const raw = inputOption(url.searchParams.get("valueInputOption"));
  const body = (await jsonBody(request)) ?? {};
  if (body.range !== undefined && body.range !== range) {
    throw new GoogleFailure(
      400,
      `Requested writing within range [${range}], but the body names range [${String(body.range)}].`,
    );
  }
  const write = planWrite(book, range, body, raw);
  const result = applyWrite(book, write);
  if (url.searchParams.get("includeValuesInResponse") !== "true") return HttpResponse.json(result);
  const shown = displayed(write.window);
  const updatedData = {
    range: result.updatedRange,
    majorDimension: "ROWS",
    values: shown.length ? shown : undefined,
  };
  return HttpResponse.json({ ...result, updatedData });
}

/** Formatted values of a window, trailing empty rows and cells trimmed, as values.get returns them. */
function displayed(window: Window): string[][] {
  const rows: string[][] = [];
  for (let row = window.top; row < window.bottom; row++) {
    const values: string[] = [];
    for (let column = window.left; column < window.right; column++) {
      const cell = window.sheet.cells.get(cellKey(row, column));
      const value = cell && evaluate(window.sheet, cell);
      values.push(value === undefined ? "" : formatted(value, cell?.percent));
    }
    while (values.length && values.at(-1) === "") values.pop();
    rows.push(values);
  }
  while (rows.length && !rows.at(-1)?.length) rows.pop();
  return rows;
}

// spreadsheets.values.batchUpdate: every range checked before any is written (atomic, like Sheets).
async function batchUpdateValues(book: FakeSpreadsheet, request: Request): Promise<Response> {
  const body = (await jsonBody(request)) ?? {};
  const raw = inputOption(body.valueInputOption);
  const data = Array.isArray(body.data) ? (body.data as Record<string, unknown>[]) : [];
  if (!data.length) throw new GoogleFailure(400, "Invalid requests: data must hold at least one ValueRange.");
  const writes = data.map((item) => planWrite(book, item.range, item, raw));
  const responses = writes.map((write) => applyWrite(book, write));
  const total = (key: "updatedRows" | "updatedColumns" | "updatedCells") =>
    responses.reduce((sum, response) => sum + response[key], 0);
  return HttpResponse.json({
    spreadsheetId: book.file.id,
    totalUpdatedRows: total("updatedRows"),
    totalUpdatedColumns: total("updatedColumns"),
    totalUpdatedCells: total("updatedCells"),
    totalUpdatedSheets: new Set(writes.map((write) => write.window.sheet)).size,
    responses,
  });
}

// spreadsheets.batchUpdate: the fake knows repeatCell with fields "note", which is what the tools send.
async function batchUpdate(book: FakeSpreadsheet, request: Request): Promise<Response> {
  const body = (await jsonBody(request)) ?? {};
  const requests = Array.isArray(body.requests) ? (body.requests as Record<string, unknown>[]) : [];
  if (!requests.length) throw new GoogleFailure(400, "Invalid requests: at least one request is required.");
  const notes = requests.map((item, index) => {
    const repeat = item.repeatCell as
      | { range?: Record<string, number | undefined>; cell?: { note?: string }; fields?: string }
      | undefined;
    const where = `Invalid requests[${index}].repeatCell`;
    if (!repeat)
      throw new GoogleFailure(400, `Invalid requests[${index}]: the sandbox supports repeatCell only.`);
    if (!repeat.fields) throw new GoogleFailure(400, `${where}: At least one field must be specified.`);
    if (repeat.fields !== "note")
      throw new GoogleFailure(400, `${where}: the sandbox supports fields "note" only.`);
    const range = repeat.range ?? {};
    const sheet = book.sheets.find((candidate) => candidate.sheetId === (range.sheetId ?? 0));
    if (!sheet) throw new GoogleFailure(400, `${where}: No grid with id: ${range.sheetId ?? 0}`);
    const window = {
      sheet,
      top: range.startRowIndex ?? 0,
      left: range.startColumnIndex ?? 0,
      bottom: range.endRowIndex ?? sheet.rowCount,
      right: range.endColumnIndex ?? sheet.columnCount,
    };
    assertInGrid(window, rangeName(window));
    return { window, note: repeat.cell?.note ?? "" };
  });
  for (const { window, note } of notes) {
    for (let row = window.top; row < window.bottom; row++) {
      for (let column = window.left; column < window.right; column++) {
        const key = cellKey(row, column);
        const cell: FakeCell = { ...window.sheet.cells.get(key), note: note || undefined };
        if (cell.entered || cell.note) window.sheet.cells.set(key, cell);
        else window.sheet.cells.delete(key);
      }
    }
  }
  book.file.modifiedTime = new Date().toISOString();
  return HttpResponse.json({ spreadsheetId: book.file.id, replies: requests.map(() => ({})) });
}

// spreadsheets.create: the sheets given (titles and grid sizes), or one 1000 × 26 "Sheet1".
async function create(state: FakeGoogle, url: URL, request: Request): Promise<Response> {
  const body = (await jsonBody(request)) ?? {};
  const properties = (body.properties ?? {}) as { title?: string };
  const given = Array.isArray(body.sheets) ? (body.sheets as Record<string, unknown>[]) : [];
  if (given.some((sheet) => sheet.data !== undefined)) {
    throw new GoogleFailure(400, "The sandbox does not take grid data on create; write values afterwards.");
  }
  const sheets = (given.length ? given : [{}]).map((sheet, index) => {
    const props = (sheet.properties ?? {}) as {
      title?: string;
      gridProperties?: { rowCount?: number; columnCount?: number };
    };
    return newSheet(index === 0 ? 0 : 100_000 + index, props.title ?? `Sheet${index + 1}`, [], {
      rows: props.gridProperties?.rowCount ?? 1000,
      columns: props.gridProperties?.columnCount ?? 26,
    });
  });
  const now = new Date().toISOString();
  const id = newSpreadsheetId();
  const file = {
    id,
    name: properties.title || "Untitled spreadsheet",
    mimeType: SPREADSHEET_MIME,
    createdTime: now,
    modifiedTime: now,
    trashed: false,
    owner: "me",
    domainShared: false,
    granted: true,
  };
  state.files.push(file);
  const book: FakeSpreadsheet = { file, locale: "en_US", timeZone: "Europe/London", sheets };
  state.spreadsheets.set(id, book);
  return masked(
    {
      ...spreadsheetResource(book),
      sheets: sheets.map((sheet) => ({ properties: sheetProperties(book, sheet) })),
    },
    url,
  );
}
