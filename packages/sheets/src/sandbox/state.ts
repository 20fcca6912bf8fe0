import { randomBytes } from "node:crypto";
import { type FakeCell, userEntered } from "./values.js";

/** The Google access token the sandbox accepts. */
export const SANDBOX_TOKEN = "sandbox-google-token";
export const SPREADSHEET_MIME = "application/vnd.google-apps.spreadsheet";

/** A Drive file the fake knows. */
export interface FakeFile {
  id: string;
  name: string;
  mimeType: string;
  createdTime: string;
  modifiedTime: string;
  trashed: boolean;
  /** Set for files in a shared drive. */
  driveId?: string;
  /** `me` or a colleague's name; only the user's own files are in the `user` corpus. */
  owner: string;
  /** Shared with everyone in the organisation's domain (the `domain` corpus). */
  domainShared: boolean;
  /** Whether this app may reach the file under drive.file; Sheets answers 403 when not. */
  granted: boolean;
}

export interface FakeSheet {
  sheetId: number;
  title: string;
  rowCount: number;
  columnCount: number;
  hidden: boolean;
  /** Cells by `row,column`, both 0-based. */
  cells: Map<string, FakeCell>;
}

export interface FakeSpreadsheet {
  file: FakeFile;
  locale: string;
  timeZone: string;
  sheets: FakeSheet[];
}

/** Everything the fake Google holds; fresh per `sandbox()` call. */
export interface FakeGoogle {
  files: FakeFile[];
  spreadsheets: Map<string, FakeSpreadsheet>;
  sharedDrives: Set<string>;
}

export const cellKey = (row: number, column: number): string => `${row},${column}`;

/** A Sheets-like id: 44 URL-safe characters. */
export const newSpreadsheetId = (): string => `1${randomBytes(33).toString("base64url")}`;

/** A new sheet; `rows` fills it from the top-left as if typed (USER_ENTERED). */
export function newSheet(
  sheetId: number,
  title: string,
  rows: unknown[][] = [],
  size = { rows: 1000, columns: 26 },
): FakeSheet {
  const cells = new Map<string, FakeCell>();
  for (const [row, values] of rows.entries()) {
    for (const [column, value] of values.entries()) {
      const cell = userEntered(value);
      if (cell) cells.set(cellKey(row, column), cell);
    }
  }
  return { sheetId, title, rowCount: size.rows, columnCount: size.columns, hidden: false, cells };
}

/** The Sheets URL of a spreadsheet. */
export const spreadsheetUrl = (id: string): string => `https://docs.google.com/spreadsheets/d/${id}/edit`;

// Seeds: fixed times, newest first by `modifiedTime` in list order, so sorting is observable.
const MY_SPREADSHEETS = [
  "Quarterly report",
  "Team budget 2025",
  "Sales pipeline",
  "Hiring plan",
  "Inventory",
  "Marketing calendar",
  "Customer list",
  "Expense tracker",
  "Project timeline",
  "Vendor contacts",
  "Event RSVPs",
  "Budget draft",
  "Large export",
];

/** The seeded drive: 13 of the user's spreadsheets, others that searches must leave out or reach only on request. */
export function seed(): FakeGoogle {
  const state: FakeGoogle = { files: [], spreadsheets: new Map(), sharedDrives: new Set(["0AFinanceDrive"]) };
  const time = (index: number) => new Date(Date.UTC(2025, 5, 30, 12) - index * 86_400_000).toISOString();
  let index = 0;
  const add = (name: string, extra: Partial<FakeFile> = {}, sheets?: FakeSheet[]): FakeFile => {
    const id = extra.id ?? `${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${index}`;
    const file: FakeFile = {
      id,
      name,
      mimeType: SPREADSHEET_MIME,
      createdTime: time(index + 40),
      modifiedTime: time(index),
      trashed: false,
      owner: "me",
      domainShared: false,
      granted: true,
      ...extra,
    };
    index++;
    state.files.push(file);
    if (file.mimeType === SPREADSHEET_MIME) {
      state.spreadsheets.set(id, {
        file,
        locale: "en_US",
        timeZone: "Europe/London",
        sheets: sheets ?? [newSheet(0, "Sheet1", [["Name", "Value"]])],
      });
    }
    return file;
  };
  for (const name of MY_SPREADSHEETS) add(name, {}, sheetsFor(name));
  add("Budget 2023 (old)", { trashed: true });
  add("Budget notes", { mimeType: "application/vnd.google-apps.document" });
  add("Finance forecast", { driveId: "0AFinanceDrive", owner: "Grace" });
  add("Payroll summary", { driveId: "0AFinanceDrive", owner: "Grace" });
  add("Company holidays", { owner: "Grace", domainShared: true });
  add("Org chart", { owner: "Grace", domainShared: true });
  add("Confidential salaries", { id: "confidential-salaries", owner: "Grace", granted: false });
  return state;
}

function sheetsFor(name: string): FakeSheet[] | undefined {
  if (name === "Quarterly report") {
    const data = newSheet(1_839_201, "Jon's Q1 data", [["Week", "Calls"]], { rows: 200, columns: 10 });
    const archive = newSheet(2024, "Archive", [["Old"]]);
    archive.hidden = true;
    return [
      newSheet(0, "Summary", [
        ["Region", "Revenue", "Share"],
        ["North", 1200, "60%"],
        ["South", 800, "40%"],
        ["Total", "=SUM(B2:B3)", "=SUM(C2:C3)"],
      ]),
      data,
      archive,
    ];
  }
  if (name === "Large export") {
    // About 400 kB of JSON when read whole, to exercise the size cap.
    const rows = Array.from({ length: 1000 }, (_, row) =>
      Array.from({ length: 10 }, (_, column) => `row ${row + 1} column ${column + 1} text`),
    );
    return [newSheet(0, "Export", rows, { rows: 1000, columns: 10 })];
  }
  return undefined;
}
