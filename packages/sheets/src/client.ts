import { setTimeout as sleep } from "node:timers/promises";
import type { drive_v3 } from "@googleapis/drive";
import type { sheets_v4 } from "@googleapis/sheets";
import {
  createHttpClient,
  DEFAULT_RETRY,
  type FailureInfo,
  type HttpClient,
  kindForStatus,
  type RetryPolicy,
  retryAfterMs,
  type Secret,
  type ToolContext,
  ToolError,
  upstreamMessage,
} from "@toolkits/core";
import type { CellBlock, CellValue } from "./cells.js";
import { GOOGLE } from "./scopes.js";
import type { SpreadsheetInfo } from "./spreadsheet.js";

/** Setting naming one root URL for every Google API this toolkit calls (a fake server in tests). */
export const ROOT_URL_SETTING = "GOOGLE_API_ROOT_URL";
/** Where userinfo and Drive `about` live when no root URL is configured. */
const WWW_ROOT = "https://www.googleapis.com";
/** Per-attempt timeout, in milliseconds. */
export const TIMEOUT_MS = 30_000;

const METADATA_FIELDS =
  "spreadsheetId,spreadsheetUrl,properties(title,locale,timeZone)," +
  "sheets/properties(sheetId,title,index,sheetType,hidden,gridProperties(rowCount,columnCount))";
const GRID_FIELDS =
  "sheets(properties/sheetId,data(startRow,startColumn,rowData/values(userEnteredValue,formattedValue,note)))";
const SEARCH_FIELDS = "nextPageToken,incompleteSearch,files(id,name,modifiedTime,webViewLink)";
const USER_FIELDS = "user(displayName,emailAddress,photoLink),storageQuota,canCreateDrives";
const RETRY_STATUSES = new Set([408, 429, 500, 502, 503, 504]);
const PICKER_HINT =
  "This app only reaches spreadsheets it created or that the user picked (drive.file access): " +
  "call Sheets.GenerateFilePickerUrl and ask the user to pick the file to grant access, " +
  "or check the id with Sheets.SearchSpreadsheets.";

/** A grid read: Sheets' GridData for the requested range (0-based `startRow`/`startColumn`, omitted when 0). */
export type GridData = sheets_v4.Schema$GridData;
export type UpdateValuesResponse = sheets_v4.Schema$UpdateValuesResponse;
export type BatchUpdateValuesResponse = sheets_v4.Schema$BatchUpdateValuesResponse;
export type FileList = drive_v3.Schema$FileList;
export type DriveAbout = drive_v3.Schema$About;
export type SpreadsheetSearch = Pick<
  drive_v3.Params$Resource$Files$List,
  | "q"
  | "orderBy"
  | "pageSize"
  | "pageToken"
  | "corpora"
  | "driveId"
  | "includeItemsFromAllDrives"
  | "supportsAllDrives"
>;

/** The OAuth2 v2 userinfo record. */
export interface UserInfo {
  id?: string;
  email?: string;
  verified_email?: boolean;
  name?: string;
  given_name?: string;
  family_name?: string;
  picture?: string;
  locale?: string;
  /** The Google Workspace domain, for Workspace accounts. */
  hd?: string;
}

/**
 * Typed access to the Google endpoints the sheets tools call. Every method sends the caller's
 * Google access token, passes the call's abort signal, times out after 30 s per attempt, retries
 * idempotent requests on 408/429/500/502/503/504 and network failures within the retry budget (honouring
 * `Retry-After`), never retries spreadsheet creation, and throws ToolError with Google's own message.
 */
export interface GoogleClient {
  /** `GET /v4/spreadsheets/{id}` with a metadata-only field mask. @throws ToolError `not_found`/`forbidden` with the picker hint. */
  spreadsheet(spreadsheetId: string): Promise<SpreadsheetInfo>;
  /** `GET /v4/spreadsheets/{id}?ranges=…`: cell values, formatted values and notes of one A1 range on sheet `sheetId`. */
  readGrid(spreadsheetId: string, sheetId: number, range: string): Promise<GridData | undefined>;
  /** `POST /v4/spreadsheets`: a spreadsheet with one sheet `Sheet1` of the given grid size. Never retried. */
  create(title: string, grid: { rowCount: number; columnCount: number }): Promise<SpreadsheetInfo>;
  /** `PUT /v4/spreadsheets/{id}/values/{range}` USER_ENTERED, echoing the formatted result. */
  writeCell(spreadsheetId: string, range: string, value: string): Promise<UpdateValuesResponse>;
  /** `POST /v4/spreadsheets/{id}/values:batchUpdate` USER_ENTERED: all blocks in one atomic request. */
  writeBlocks(spreadsheetId: string, blocks: readonly CellBlock[]): Promise<BatchUpdateValuesResponse>;
  /** `POST /v4/spreadsheets/{id}:batchUpdate` repeatCell: sets the note of one cell (row and column 1-based). */
  setNote(spreadsheetId: string, sheetId: number, row: number, column: number, note: string): Promise<void>;
  /** `GET /drive/v3/files`: id, name, modifiedTime and webViewLink of each match. */
  searchFiles(search: SpreadsheetSearch): Promise<FileList>;
  /** `GET /oauth2/v2/userinfo`. */
  userInfo(): Promise<UserInfo>;
  /** `GET /drive/v3/about`: the user, storage quota and whether they can create shared drives. */
  driveAbout(): Promise<DriveAbout>;
}

/** Overrides for tests and embedding apps. */
export interface GoogleClientOptions {
  retry?: RetryPolicy;
}

/** One upstream operation, for retry decisions and messages. */
interface Operation {
  /** Google's method id, e.g. `spreadsheets.get`. */
  method: string;
  idempotent: boolean;
  /** Set when the request addresses one spreadsheet, so 403/404 get the picker hint. */
  spreadsheetId?: string;
}

// Imported on first use: the Google client libraries cost ~100 ms to load.
let sheetsLibrary: Promise<typeof import("@googleapis/sheets")> | undefined;
let driveLibrary: Promise<typeof import("@googleapis/drive")> | undefined;

/**
 * A client acting for the caller of one tool: token from `context.accessToken("google", scopes)`,
 * root URL from the `GOOGLE_API_ROOT_URL` setting (default: each API's own Google host).
 */
export function googleClient(
  context: ToolContext,
  scopes: readonly string[],
  options: GoogleClientOptions = {},
): GoogleClient {
  const policy = options.retry ?? DEFAULT_RETRY;
  const rootUrl = context.setting(ROOT_URL_SETTING)?.replace(/\/*$/, "/");
  const token = (): Promise<Secret> => context.accessToken(GOOGLE, scopes);

  // Options for every googleapis call: our retry loop replaces gaxios' (which ignores Retry-After
  // and would retry PUT but not the idempotent POSTs), and global fetch keeps node-fetch unloaded.
  const methodOptions = async () => ({
    headers: { authorization: `Bearer ${(await token()).reveal()}` },
    signal: context.signal,
    timeout: TIMEOUT_MS,
    retry: false,
    fetchImplementation: ((input, init) => fetch(input, init)) as typeof fetch,
  });
  const sheetsApi = async () => {
    sheetsLibrary ??= import("@googleapis/sheets");
    return (await sheetsLibrary).sheets({ version: "v4", ...(rootUrl ? { rootUrl } : {}) });
  };
  const driveApi = async () => {
    driveLibrary ??= import("@googleapis/drive");
    return (await driveLibrary).drive({ version: "v3", ...(rootUrl ? { rootUrl } : {}) });
  };
  /** Runs a googleapis call; an answer that is not the expected JSON object is an upstream_error. */
  const send = async <T>(
    operation: Operation,
    run: () => Promise<{ data: T }>,
    valid: (data: T) => boolean = () => true,
  ): Promise<T> => {
    const data = await withRetry(operation, policy, context.signal, async () => (await run()).data);
    return usable(data, valid, `Google ${operation.method}`);
  };

  let www: HttpClient | undefined;
  const wwwClient = (): HttpClient => {
    www ??= createHttpClient({
      baseUrl: rootUrl ?? WWW_ROOT,
      authorization: async () => `Bearer ${(await token()).reveal()}`,
      timeoutMs: TIMEOUT_MS,
      retry: policy,
      advise: ({ status, upstream }: FailureInfo) => advise(status, upstream),
    });
    return www;
  };
  const getWww = async <T>(
    path: string,
    query: Record<string, string> | undefined,
    valid: (data: T) => boolean,
  ): Promise<T> => {
    const { data } = await wwwClient().request<T>({ method: "GET", path, query, signal: context.signal });
    return usable(data, valid, `GET ${path}`);
  };

  return {
    async spreadsheet(spreadsheetId) {
      const api = await sheetsApi();
      const data = await send(
        { method: "spreadsheets.get", idempotent: true, spreadsheetId },
        async () => api.spreadsheets.get({ spreadsheetId, fields: METADATA_FIELDS }, await methodOptions()),
        hasSpreadsheetId,
      );
      return spreadsheetInfo(data);
    },
    async readGrid(spreadsheetId, sheetId, range) {
      const api = await sheetsApi();
      const data = await send({ method: "spreadsheets.get", idempotent: true, spreadsheetId }, async () =>
        api.spreadsheets.get({ spreadsheetId, ranges: [range], fields: GRID_FIELDS }, await methodOptions()),
      );
      return data.sheets?.find((sheet) => (sheet.properties?.sheetId ?? 0) === sheetId)?.data?.[0];
    },
    async create(title, grid) {
      const api = await sheetsApi();
      const requestBody = {
        properties: { title },
        sheets: [{ properties: { title: "Sheet1", gridProperties: grid } }],
      };
      const data = await send(
        { method: "spreadsheets.create", idempotent: false },
        async () => api.spreadsheets.create({ fields: METADATA_FIELDS, requestBody }, await methodOptions()),
        hasSpreadsheetId,
      );
      return spreadsheetInfo(data);
    },
    async writeCell(spreadsheetId, range, value) {
      const api = await sheetsApi();
      return send({ method: "spreadsheets.values.update", idempotent: true, spreadsheetId }, async () =>
        api.spreadsheets.values.update(
          {
            spreadsheetId,
            range,
            valueInputOption: "USER_ENTERED",
            includeValuesInResponse: true,
            requestBody: { range, majorDimension: "ROWS", values: [[value]] },
          },
          await methodOptions(),
        ),
      );
    },
    async writeBlocks(spreadsheetId, blocks) {
      const api = await sheetsApi();
      const data = blocks.map(({ range, values }) => ({
        range,
        majorDimension: "ROWS",
        values: values as CellValue[][],
      }));
      // Rewriting the same values is harmless, so this POST may be retried.
      return send({ method: "spreadsheets.values.batchUpdate", idempotent: true, spreadsheetId }, async () =>
        api.spreadsheets.values.batchUpdate(
          { spreadsheetId, requestBody: { valueInputOption: "USER_ENTERED", data } },
          await methodOptions(),
        ),
      );
    },
    async setNote(spreadsheetId, sheetId, row, column, note) {
      const api = await sheetsApi();
      const range = {
        sheetId,
        startRowIndex: row - 1,
        endRowIndex: row,
        startColumnIndex: column - 1,
        endColumnIndex: column,
      };
      const requests = [{ repeatCell: { range, cell: { note }, fields: "note" } }];
      // Setting the same note twice leaves the same note, so this POST may be retried.
      await send({ method: "spreadsheets.batchUpdate", idempotent: true, spreadsheetId }, async () =>
        api.spreadsheets.batchUpdate({ spreadsheetId, requestBody: { requests } }, await methodOptions()),
      );
    },
    async searchFiles(search) {
      const api = await driveApi();
      return send(
        { method: "drive.files.list", idempotent: true },
        async () => api.files.list({ ...search, fields: SEARCH_FIELDS }, await methodOptions()),
        (data) => Array.isArray(data.files),
      );
    },
    userInfo: () =>
      getWww<UserInfo>(
        "/oauth2/v2/userinfo",
        undefined,
        (data) => typeof (data.email ?? data.id) === "string",
      ),
    driveAbout: () => getWww<DriveAbout>("/drive/v3/about", { fields: USER_FIELDS }, () => true),
  };
}

const hasSpreadsheetId = (data: sheets_v4.Schema$Spreadsheet): boolean =>
  typeof data.spreadsheetId === "string";

/**
 * `data` when it is a JSON object that passes `valid`.
 * @throws ToolError `upstream_error` otherwise (malformed JSON, an empty body, another shape).
 */
function usable<T>(data: T | undefined, valid: (data: T) => boolean, call: string): T {
  if (data !== null && typeof data === "object" && !Array.isArray(data) && valid(data)) return data;
  throw new ToolError(
    "upstream_error",
    `${call} answered without the data it should carry; try again later.`,
  );
}

function spreadsheetInfo(data: sheets_v4.Schema$Spreadsheet): SpreadsheetInfo {
  const id = data.spreadsheetId ?? "";
  return {
    id,
    title: data.properties?.title ?? "",
    url: data.spreadsheetUrl ?? `https://docs.google.com/spreadsheets/d/${id}/edit`,
    locale: data.properties?.locale ?? undefined,
    timeZone: data.properties?.timeZone ?? undefined,
    sheets: (data.sheets ?? []).map(({ properties: p }, index) => ({
      id: p?.sheetId ?? 0,
      title: p?.title ?? "",
      position: index + 1,
      rows: p?.gridProperties?.rowCount ?? 0,
      columns: p?.gridProperties?.columnCount ?? 0,
      hidden: p?.hidden ?? false,
      type: p?.sheetType ?? "GRID",
    })),
  };
}

/** What a failed googleapis (gaxios) call carries; typed structurally so gaxios need not be imported. */
interface GaxiosFailure {
  status?: number;
  code?: string | number;
  message?: string;
  response?: { status: number; headers?: Headers; data?: unknown };
}

/**
 * Runs `attempt`, retrying idempotent operations on 408/429/500/502/503/504 and network failures while the
 * wait fits `policy.budgetMs`. The wait is `Retry-After` when sent, else exponential backoff with jitter.
 */
async function withRetry<T>(
  operation: Operation,
  policy: RetryPolicy,
  signal: AbortSignal,
  attempt: () => Promise<T>,
): Promise<T> {
  const started = Date.now();
  for (let retries = 0; ; retries++) {
    try {
      return await attempt();
    } catch (error) {
      if (error instanceof ToolError) throw error;
      const failure = error as GaxiosFailure;
      const status = failure.response?.status ?? failure.status;
      const asked = failure.response?.headers ? retryAfterMs(failure.response.headers) : undefined;
      const wait = asked ?? Math.random() * Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** retries);
      const transient = status === undefined ? !isTimeoutOrAbort(failure) : RETRY_STATUSES.has(status);
      const retry =
        operation.idempotent &&
        transient &&
        retries < policy.limit &&
        Date.now() - started + wait <= policy.budgetMs;
      if (!retry) throw toolError(failure, operation, asked ?? policy.maxBackoffMs, signal);
      await sleep(wait, undefined, { signal }).catch(() => {
        throw new ToolError("timeout", `${operation.method} was cancelled.`, { retryable: false });
      });
    }
  }
}

function isTimeoutOrAbort(failure: GaxiosFailure): boolean {
  return failure.code === "TimeoutError" || failure.code === "AbortError";
}

const NOT_REPEATED =
  " The request may have reached Google, so it was not repeated (that could do it twice): check whether it took effect before calling again.";

/**
 * Maps a gaxios failure to the ToolError a model reads, with Google's own message and advice.
 * The gaxios error is not kept as `cause`: its request config carries the Authorization header.
 */
function toolError(
  failure: GaxiosFailure,
  operation: Operation,
  waitMs: number,
  signal: AbortSignal,
): ToolError {
  const status = failure.response?.status ?? failure.status;
  const unknownOutcome = operation.idempotent ? "" : NOT_REPEATED;
  if (status === undefined) {
    if (signal.aborted)
      return new ToolError("timeout", `${operation.method} was cancelled.`, { retryable: false });
    if (failure.code === "TimeoutError") {
      return new ToolError(
        "timeout",
        `${operation.method} timed out after ${TIMEOUT_MS / 1000} s.${unknownOutcome}`,
        { retryable: operation.idempotent },
      );
    }
    return new ToolError(
      "upstream_unavailable",
      `${operation.method} could not reach Google (${failure.message ?? failure.code ?? "network error"}).${unknownOutcome}`,
      { retryable: operation.idempotent },
    );
  }
  const kind = kindForStatus(status);
  const data = failure.response?.data;
  const upstream = upstreamMessage(typeof data === "string" ? data : JSON.stringify(data ?? ""));
  const advice = advise(status, upstream, operation.spreadsheetId);
  const said = upstream ? `: ${upstream}${/[.!?]$/.test(upstream) ? "" : "."}` : ".";
  const outcome = status >= 500 ? unknownOutcome : "";
  return new ToolError(
    kind,
    `Google ${operation.method} failed with HTTP ${status}${said}${advice ? ` ${advice}` : ""}${outcome}`,
    {
      status,
      retryAfterMs: kind === "rate_limited" ? waitMs : undefined,
      retryable: kind === "rate_limited" || (operation.idempotent && RETRY_STATUSES.has(status)),
    },
  );
}

/** Toolkit advice appended to an upstream failure; `spreadsheetId` set when one spreadsheet was addressed. */
function advise(status: number, upstream: string, spreadsheetId?: string): string | undefined {
  if (status === 401)
    return "The Google access token was rejected (expired or revoked): sign in to Google again.";
  if (/insufficient authentication scopes/i.test(upstream)) {
    return "Sign in again granting the scopes these tools need (drive.file; WhoAmI also userinfo.profile and userinfo.email).";
  }
  if ((status === 403 || status === 404) && spreadsheetId !== undefined) return PICKER_HINT;
  if (status === 400 && /exceeds grid limits/i.test(upstream)) {
    return "Write inside the sheet's grid; Sheets.GetSpreadsheetMetadata gives each sheet's rows and columns.";
  }
  if (status === 429)
    return "Google allows about 60 reads and 60 writes per minute per user; wait before retrying.";
  return undefined;
}
