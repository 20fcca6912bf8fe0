import { okData, useToolkitSandbox } from "@toolkits/core/testing";
import { describe, expect, it } from "vitest";
import { sheetsToolkit } from "../src/index.js";
import { SHEETS } from "./kit.js";

const box = useToolkitSandbox(sheetsToolkit, SHEETS);
const QUARTERLY = "quarterly-report-0";

/** GetSpreadsheet's `rows`: cells by row number and column letters. */
type Rows = Record<number, Record<string, unknown>>;

describe("create, then read back through MCP", () => {
  it("keeps numbers as numbers, booleans as booleans and formulas as formulas", async () => {
    const data = {
      1: { A: "Item", B: "Qty", C: "In stock" },
      2: { A: "Pens", B: 3, C: true },
      3: { A: "Ink", B: "4.5", C: "FALSE" },
      4: { A: "Total", B: "=SUM(B2:B3)" },
    };
    const created = await box.call("Sheets.CreateSpreadsheet", {
      title: "Stationery",
      data: JSON.stringify(data),
    });
    expect(created.isError).toBe(false);
    expect(created.data).toMatchObject({
      title: "Stationery",
      sheet: { id: 0, title: "Sheet1", position: 1 },
      updated_cells: 11,
    });
    expect(created.data?.url).toBe(
      `https://docs.google.com/spreadsheets/d/${created.data?.spreadsheet_id}/edit`,
    );

    const read = await box.call("Sheets.GetSpreadsheet", { spreadsheet_id: created.data?.spreadsheet_id });
    expect(read.isError).toBe(false);
    expect(read.data?.range).toBe("'Sheet1'!A1:Z1000");
    expect(read.data?.rows).toEqual({
      1: { A: { value: "Item" }, B: { value: "Qty" }, C: { value: "In stock" } },
      2: { A: { value: "Pens" }, B: { value: 3 }, C: { value: true } },
      3: { A: { value: "Ink" }, B: { value: 4.5 }, C: { value: false } },
      4: { A: { value: "Total" }, B: { value: "=SUM(B2:B3)", formatted: "7.5" } },
    });
    expect(read.data?.truncated).toBeUndefined();
  });

  it("creates an empty spreadsheet with the default title", async () => {
    const created = await box.call("Sheets.CreateSpreadsheet");
    expect(created.data).toMatchObject({ title: "Untitled spreadsheet", updated_cells: 0 });
    const read = await box.call("Sheets.GetSpreadsheet", { spreadsheet_id: created.data?.spreadsheet_id });
    expect(read.data?.rows).toEqual({});
  });

  it("grows the new sheet's grid to fit data beyond 1000 rows or column Z", async () => {
    const created = await box.call("Sheets.CreateSpreadsheet", {
      data: JSON.stringify({ 1200: { AD: "far" } }),
    });
    const meta = await box.call("Sheets.GetSpreadsheetMetadata", {
      spreadsheet_id: created.data?.spreadsheet_id,
    });
    expect((okData(meta).sheets as unknown[])[0]).toMatchObject({ row_count: 1200, column_count: 30 });
    const read = await box.call("Sheets.GetSpreadsheet", {
      spreadsheet_id: created.data?.spreadsheet_id,
      start_row: 1200,
      start_col: "AD",
    });
    expect(read.data?.rows).toEqual({ 1200: { AD: { value: "far" } } });
  });
});

describe("writing", () => {
  it("writes into a sheet whose title has a space and an apostrophe", async () => {
    const written = await box.call("Sheets.WriteToCell", {
      spreadsheet_id: QUARTERLY,
      sheet_name: "Jon's Q1 data",
      column: "c",
      row: 7,
      value: "42",
    });
    expect(written.isError).toBe(false);
    expect(written.data).toEqual({
      spreadsheet_id: QUARTERLY,
      sheet: { id: 1839201, title: "Jon's Q1 data", position: 2 },
      cell: "C7",
      value: "42",
    });
    const put = box.requests.find((request) => request.method === "PUT");
    expect(new URL(put?.url ?? "").pathname).toBe(
      `/v4/spreadsheets/${QUARTERLY}/values/%27Jon%27%27s%20Q1%20data%27%21C7`,
    );

    const read = await box.call("Sheets.GetSpreadsheet", {
      spreadsheet_id: QUARTERLY,
      sheet_id_or_name: "Jon's Q1 data",
      start_row: 7,
      start_col: "C",
      max_rows: 1,
      max_cols: 1,
    });
    expect(read.data?.rows).toEqual({ 7: { C: { value: 42 } } });
  });

  it("shows a formula's result and clears a cell with an empty value", async () => {
    const formula = await box.call("Sheets.WriteToCell", {
      spreadsheet_id: QUARTERLY,
      sheet_name: "Summary",
      column: "D",
      row: 1,
      value: "=B4",
    });
    expect(formula.data?.value).toBe("2000");
    const cleared = await box.call("Sheets.WriteToCell", {
      spreadsheet_id: QUARTERLY,
      sheet_name: "Summary",
      column: "A",
      row: 1,
      value: "",
    });
    expect(cleared.isError).toBe(false);
    expect(cleared.data?.value).toBeUndefined();
    const read = await box.call("Sheets.GetSpreadsheet", { spreadsheet_id: QUARTERLY, max_rows: 1 });
    expect((okData(read).rows as Rows)[1]).toEqual({
      B: { value: "Revenue" },
      C: { value: "Share" },
      D: { value: "=B4", formatted: "2000" },
    });
  });

  it("updates cells in the second sheet by position and by id, in one write each", async () => {
    const byPosition = await box.call("Sheets.UpdateCells", {
      spreadsheet_id: QUARTERLY,
      sheet_position: 2,
      data: JSON.stringify({ 2: { A: "W1", B: 10 }, 3: { A: "W2", B: 12 }, 5: { D: true } }),
    });
    expect(byPosition.isError).toBe(false);
    expect(byPosition.data).toEqual({
      spreadsheet_id: QUARTERLY,
      sheet: { id: 1839201, title: "Jon's Q1 data", position: 2 },
      updated_cells: 5,
      updated_ranges: ["'Jon''s Q1 data'!A2:B3", "'Jon''s Q1 data'!D5"],
    });

    const before = box.requests.length;
    const byId = await box.call("Sheets.UpdateCells", {
      spreadsheet_id: QUARTERLY,
      sheet_id_or_name: "1839201",
      sheet_position: 1,
      data: JSON.stringify({ 4: { B: "=SUM(B2:B3)" } }),
    });
    expect(byId.data?.sheet).toMatchObject({ title: "Jon's Q1 data" });
    const writes = box.requests.slice(before).filter((request) => request.method === "POST");
    expect(writes).toHaveLength(1);
    expect(JSON.parse(writes[0]?.body ?? "")).toEqual({
      valueInputOption: "USER_ENTERED",
      data: [{ range: "'Jon''s Q1 data'!B4", majorDimension: "ROWS", values: [["=SUM(B2:B3)"]] }],
    });

    const read = await box.call("Sheets.GetSpreadsheet", {
      spreadsheet_id: QUARTERLY,
      sheet_position: 2,
      max_rows: 5,
    });
    expect(read.data?.rows).toEqual({
      1: { A: { value: "Week" }, B: { value: "Calls" } },
      2: { A: { value: "W1" }, B: { value: 10 } },
      3: { A: { value: "W2" }, B: { value: 12 } },
      4: { B: { value: "=SUM(B2:B3)", formatted: "22" } },
      5: { D: { value: true } },
    });
  });

  it("adds a note without touching the value", async () => {
    const noted = await box.call("Sheets.AddNoteToCell", {
      spreadsheet_id: QUARTERLY,
      column: "B",
      row: 2,
      note_text: "Includes the March refund",
    });
    expect(noted.data).toEqual({
      spreadsheet_id: QUARTERLY,
      sheet: { id: 0, title: "Summary", position: 1 },
      cell: "B2",
      note: "Includes the March refund",
    });
    const read = await box.call("Sheets.GetSpreadsheet", {
      spreadsheet_id: QUARTERLY,
      start_row: 2,
      max_rows: 1,
      max_cols: 2,
    });
    expect(read.data?.rows).toEqual({
      2: { A: { value: "North" }, B: { value: 1200, note: "Includes the March refund" } },
    });
    await box.call("Sheets.AddNoteToCell", { spreadsheet_id: QUARTERLY, column: "B", row: 2, note_text: "" });
    const again = await box.call("Sheets.GetSpreadsheet", {
      spreadsheet_id: QUARTERLY,
      start_row: 2,
      max_rows: 1,
      max_cols: 2,
    });
    expect((okData(again).rows as Rows)[2]?.B).toEqual({ value: 1200 });
  });
});

describe("reading a window", () => {
  it("honours start_row, start_col as letters or number, max_rows and max_cols", async () => {
    const expected = {
      2: { B: { value: 1200 }, C: { value: 0.6, formatted: "60%" } },
      3: { B: { value: 800 }, C: { value: 0.4, formatted: "40%" } },
    };
    for (const start_col of ["B", "b", 2, "2"]) {
      const read = await box.call("Sheets.GetSpreadsheet", {
        spreadsheet_id: QUARTERLY,
        start_row: 2,
        start_col,
        max_rows: 2,
        max_cols: 2,
      });
      expect(read.isError).toBe(false);
      expect(read.data?.range).toBe("'Summary'!B2:C3");
      expect(read.data?.rows).toEqual(expected);
    }
  });

  it("reads max_cols up to 100 within the grid and clips the window to the grid", async () => {
    const read = await box.call("Sheets.GetSpreadsheet", {
      spreadsheet_id: QUARTERLY,
      sheet_position: 2,
      start_row: 195,
      max_cols: 100,
    });
    expect(read.data?.range).toBe("'Jon''s Q1 data'!A195:J200");
    expect(read.data?.sheet).toEqual({
      id: 1839201,
      title: "Jon's Q1 data",
      position: 2,
      row_count: 200,
      column_count: 10,
    });
  });

  it("says so when the window starts beyond the grid", async () => {
    const read = await box.call("Sheets.GetSpreadsheet", { spreadsheet_id: QUARTERLY, start_row: 5000 });
    expect(read.isError).toBe(false);
    expect(read.data?.rows).toEqual({});
    expect(read.data?.note).toBe('A5000 is beyond the grid of sheet "Summary" (1000 rows, columns A to Z).');
  });

  it("cuts a large read at a whole row and continues from next_start_row without gaps or repeats", async () => {
    const seen: number[] = [];
    let start_row = 1;
    for (let page = 0; page < 20; page++) {
      const read = await box.call("Sheets.GetSpreadsheet", { spreadsheet_id: "large-export-12", start_row });
      expect(read.isError).toBe(false);
      expect(Buffer.byteLength(JSON.stringify(read.data?.rows))).toBeLessThanOrEqual(60_000);
      const cells = read.data?.rows as Rows;
      const rows = Object.keys(cells).map(Number);
      seen.push(...rows);
      expect(cells[rows[0] ?? 0]?.J).toEqual({ value: `row ${rows[0]} column 10 text` });
      if (!read.data?.truncated) break;
      expect(read.data?.next_start_row).toBe((rows.at(-1) ?? 0) + 1);
      start_row = read.data?.next_start_row as number;
    }
    expect(seen).toEqual(Array.from({ length: 1000 }, (_, index) => index + 1));
  });
});

describe("metadata and identity", () => {
  it("lists every sheet with id, 1-based position, grid size and visibility", async () => {
    const meta = await box.call("Sheets.GetSpreadsheetMetadata", { spreadsheet_id: QUARTERLY });
    expect(meta.data).toEqual({
      spreadsheet_id: QUARTERLY,
      title: "Quarterly report",
      url: `https://docs.google.com/spreadsheets/d/${QUARTERLY}/edit`,
      locale: "en_US",
      time_zone: "Europe/London",
      sheets: [
        {
          id: 0,
          title: "Summary",
          position: 1,
          row_count: 1000,
          column_count: 26,
          hidden: false,
          type: "GRID",
          url: `https://docs.google.com/spreadsheets/d/${QUARTERLY}/edit#gid=0`,
        },
        {
          id: 1839201,
          title: "Jon's Q1 data",
          position: 2,
          row_count: 200,
          column_count: 10,
          hidden: false,
          type: "GRID",
          url: `https://docs.google.com/spreadsheets/d/${QUARTERLY}/edit#gid=1839201`,
        },
        {
          id: 2024,
          title: "Archive",
          position: 3,
          row_count: 1000,
          column_count: 26,
          hidden: true,
          type: "GRID",
          url: `https://docs.google.com/spreadsheets/d/${QUARTERLY}/edit#gid=2024`,
        },
      ],
    });
  });

  it("tells who the user is and their Drive storage", async () => {
    const me = await box.call("Sheets.WhoAmI");
    expect(me.isError).toBe(false);
    expect(me.data?.user).toEqual({
      id: "108234567890123456789",
      name: "Ada Lovelace",
      email: "ada@example.com",
      email_verified: true,
      picture: "https://lh3.googleusercontent.com/a/sandbox-ada",
      domain: "example.com",
      locale: "en",
    });
    expect(me.data?.drive).toEqual({
      storage_limit_bytes: 16106127360,
      storage_used_bytes: 524288000,
      drive_used_bytes: 314572800,
      can_create_shared_drives: true,
    });
    expect(me.data?.access).toContain("Sheets.GenerateFilePickerUrl");
  });
});
