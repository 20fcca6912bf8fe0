import type { drive_v3 } from "@googleapis/drive";
import type { MethodOptions, sheets_v4 } from "@googleapis/sheets";
import {
  createHttpClient,
  createUpstream,
  type FailureInfo,
  type HttpClient,
  type RateBudget,
  type RetryPolicy,
  type ToolContext,
  ToolError,
} from "@toolkits/core";
import type { CellBlock, CellValue } from "./cells.js";
import type { SpreadsheetInfo } from "./spreadsheet.js";
import { SHEETS_READ_BUDGET as READ, SHEETS_WRITE_BUDGET as WRITE, WWW_ORIGIN } from "./upstreams.js";

/** Setting naming one root URL for every Google API this toolkit calls (a fake server in tests). */
export const ROOT_URL_SETTING = "GOOGLE_API_ROOT_URL";

const METADATA_FIELDS =
  "spreadsheetId,spreadsheetUrl,properties(title,locale,timeZone)," +
  "sheets/properties(sheetId,title,index,sheetType,hidden,gridProperties(rowCount,columnCount))";
const GRID_FIELDS =
  "sheets(properties/sheetId,data(startRow,startColumn,rowData/values(userEnteredValue,formattedValue,note)))";
const SEARCH_FIELDS = "nextPageToken,incompleteSearch,files(id,name,modifiedTime,webViewLink)";
const USER_FIELDS = "user(displayName,emailAddress,photoLink),storageQuota,canCreateDrives";
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
 * Typed access to the Google endpoints the sheets tools call. Every request, the Google client
 * libraries' included, goes through core's upstream policy (one `createUpstream` per client): the
 * caller's Google access token, the call's abort signal, the host's limits (time, answer size,
 * redirects), retries (never a repeated spreadsheet creation), ToolErrors carrying Google's own
 * message and this toolkit's advice, and each Sheets API request naming its read or write budget.
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

/** One Google API method call, for the policy's retry decision and for messages. */
interface Operation {
  /** Google's method id, e.g. `spreadsheets.get`. */
  method: string;
  idempotent: boolean;
  /** Set when the request addresses one spreadsheet, so 403/404 get the picker hint. */
  spreadsheetId?: string;
  /** The Sheets API budget it counts against; none for Drive. */
  budget?: RateBudget;
}

/** gaxios' hook for sending a request it prepared (URL, method, headers, encoded body) itself. */
type Adapter = NonNullable<MethodOptions["adapter"]>;

// Imported on first use: the Google client libraries cost ~100 ms to load.
let sheetsLibrary: Promise<typeof import("@googleapis/sheets")> | undefined;
let driveLibrary: Promise<typeof import("@googleapis/drive")> | undefined;

/**
 * A client acting for the caller of one tool, with the Google access token its `auth` declares
 * and the root URL from the `GOOGLE_API_ROOT_URL` setting (default: each API's own Google host).
 */
export function createGoogleClient(context: ToolContext, options: GoogleClientOptions = {}): GoogleClient {
  const rootUrl = context.setting(ROOT_URL_SETTING)?.replace(/\/*$/, "/");
  const authorization = async () => `Bearer ${(await context.credential()).value.reveal()}`;
  const policy = {
    ...context.upstream,
    retry: options.retry,
    fetch: context.fetch,
    advise: ({ status, upstream, request }: FailureInfo) =>
      advise(status, upstream, request.pathParams?.spreadsheetId),
  };
  const upstream = createUpstream(policy);

  // gaxios builds each request (URL, query, body) and hands it to this adapter, which sends it
  // under core's policy; gaxios' own retries and fetch are never used.
  const methodOptions = async (operation: Operation): Promise<MethodOptions> => {
    const { method, idempotent, spreadsheetId, budget } = operation;
    const adapter: Adapter = async <T>(prepared: Parameters<Adapter>[0]) => {
      const answer = await upstream.send({
        method: prepared.method ?? "GET",
        url: String(prepared.url),
        headers: Object.fromEntries(prepared.headers),
        body: typeof prepared.body === "string" ? prepared.body : undefined,
        idempotent,
        signal: context.signal,
        target: method,
        params: spreadsheetId === undefined ? undefined : { spreadsheetId },
        label: `Google ${method}`,
        budget,
      });
      // A Response with gaxios' `data` and `config`, as its own adapter returns.
      const response = new Response(answer.text || null, { status: answer.status, headers: answer.headers });
      return Object.assign(response, { config: prepared, data: parseJson(answer.text) as T });
    };
    return { headers: { authorization: await authorization() }, retry: false, adapter };
  };
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
    run: (options: MethodOptions) => Promise<{ data: T }>,
    valid: (data: T) => boolean = () => true,
  ): Promise<T> => {
    const { data } = await run(await methodOptions(operation)).catch(unwrapToolError);
    return usable(data, valid, `Google ${operation.method}`);
  };

  let www: HttpClient | undefined;
  const wwwClient = (): HttpClient => {
    www ??= createHttpClient({ baseUrl: rootUrl ?? WWW_ORIGIN, authorization, ...policy });
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
        { method: "spreadsheets.get", idempotent: true, spreadsheetId, budget: READ },
        (options) => api.spreadsheets.get({ spreadsheetId, fields: METADATA_FIELDS }, options),
        hasSpreadsheetId,
      );
      return spreadsheetInfo(data);
    },
    async readGrid(spreadsheetId, sheetId, range) {
      const api = await sheetsApi();
      const data = await send(
        { method: "spreadsheets.get", idempotent: true, spreadsheetId, budget: READ },
        (options) => api.spreadsheets.get({ spreadsheetId, ranges: [range], fields: GRID_FIELDS }, options),
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
        { method: "spreadsheets.create", idempotent: false, budget: WRITE },
        (options) => api.spreadsheets.create({ fields: METADATA_FIELDS, requestBody }, options),
        hasSpreadsheetId,
      );
      return spreadsheetInfo(data);
    },
    async writeCell(spreadsheetId, range, value) {
      const api = await sheetsApi();
      return send(
        { method: "spreadsheets.values.update", idempotent: true, spreadsheetId, budget: WRITE },
        (options) =>
          api.spreadsheets.values.update(
            {
              spreadsheetId,
              range,
              valueInputOption: "USER_ENTERED",
              includeValuesInResponse: true,
              requestBody: { range, majorDimension: "ROWS", values: [[value]] },
            },
            options,
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
      return send(
        { method: "spreadsheets.values.batchUpdate", idempotent: true, spreadsheetId, budget: WRITE },
        (options) =>
          api.spreadsheets.values.batchUpdate(
            { spreadsheetId, requestBody: { valueInputOption: "USER_ENTERED", data } },
            options,
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
      await send(
        { method: "spreadsheets.batchUpdate", idempotent: true, spreadsheetId, budget: WRITE },
        (options) => api.spreadsheets.batchUpdate({ spreadsheetId, requestBody: { requests } }, options),
      );
    },
    async searchFiles(search) {
      const api = await driveApi();
      return send(
        { method: "drive.files.list", idempotent: true },
        (options) => api.files.list({ ...search, fields: SEARCH_FIELDS }, options),
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

/**
 * gaxios wraps whatever its adapter throws; the ToolError core's policy threw is the error to show.
 * gaxios' error is never kept as a cause: its request config carries the Authorization header.
 */
function unwrapToolError(error: unknown): never {
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (error instanceof ToolError) throw error;
  if (cause instanceof ToolError) throw cause;
  throw new ToolError(
    "upstream_error",
    `Google call failed: ${(error as Error | undefined)?.message ?? String(error)}`,
  );
}

/** A JSON body as gaxios would parse it (undefined when empty, the text when not JSON). */
function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Toolkit advice appended to an upstream failure; `spreadsheetId` set when one spreadsheet was addressed. */
function advise(status: number, upstream: string, spreadsheetId?: string | number): string | undefined {
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
