import { type SeenResult, useToolkitSandbox } from "@toolkits/core/testing";
import { describe, expect, it } from "vitest";
import { sheetsToolkit } from "../src/index.js";
import { SHEETS } from "./kit.js";

const box = useToolkitSandbox(sheetsToolkit, SHEETS);

/** The user's own seeded spreadsheets, most recently modified first. */
const MINE = [
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

/** The spreadsheets a search result lists. */
const found = (result: SeenResult) => result.data?.spreadsheets as { id: string; title: string }[];
const titles = (result: SeenResult): string[] => found(result).map((sheet) => sheet.title);

describe("Sheets.SearchSpreadsheets", () => {
  it("pages through every spreadsheet exactly once, newest first, with limit and pagination_token", async () => {
    const ids: string[] = [];
    const names: string[] = [];
    let pagination_token: string | undefined;
    let pages = 0;
    do {
      const page = await box.call("Sheets.SearchSpreadsheets", { limit: 5, pagination_token });
      expect(page.isError).toBe(false);
      pages++;
      ids.push(...found(page).map((sheet) => sheet.id));
      names.push(...titles(page));
      expect(page.data?.more).toBe(page.data?.next_page_token !== undefined);
      pagination_token = page.data?.next_page_token as string | undefined;
    } while (pagination_token && pages < 10);
    expect(pages).toBe(3);
    expect(names).toEqual(MINE);
    expect(new Set(ids).size).toBe(ids.length);

    const whole = await box.call("Sheets.SearchSpreadsheets", { limit: 50 });
    expect(titles(whole)).toEqual(MINE);
    expect(whole.data?.more).toBe(false);
  });

  it("returns title, id, URL and modified time, and sends exactly the page size asked for", async () => {
    const page = await box.call("Sheets.SearchSpreadsheets", { limit: 1 });
    expect(page.data?.spreadsheets).toEqual([
      {
        id: "quarterly-report-0",
        title: "Quarterly report",
        url: "https://docs.google.com/spreadsheets/d/quarterly-report-0/edit?usp=drivesdk",
        modified_time: "2025-06-30T12:00:00.000Z",
      },
    ]);
    const [request] = box.requests;
    const query = new URL(request?.url ?? "").searchParams;
    expect(Object.fromEntries(query)).toEqual({
      q: "mimeType = 'application/vnd.google-apps.spreadsheet' and trashed = false",
      orderBy: "modifiedTime desc",
      pageSize: "1",
      fields: "nextPageToken,incompleteSearch,files(id,name,modifiedTime,webViewLink)",
    });
  });

  it("filters by title keywords that must and must not appear, never returning trashed files or documents", async () => {
    const budget = await box.call("Sheets.SearchSpreadsheets", { spreadsheet_contains: ["budget"] });
    expect(titles(budget)).toEqual(["Team budget 2025", "Budget draft"]);
    const notDraft = await box.call("Sheets.SearchSpreadsheets", {
      spreadsheet_contains: ["budget"],
      spreadsheet_not_contains: ["draft"],
    });
    expect(titles(notDraft)).toEqual(["Team budget 2025"]);
  });

  it("escapes apostrophes and backslashes in keywords", async () => {
    await box.call("Sheets.CreateSpreadsheet", { title: "Jon's plan \\ v2" });
    const before = box.requests.length;
    const found = await box.call("Sheets.SearchSpreadsheets", { spreadsheet_contains: ["jon's", "\\ v2"] });
    expect(titles(found)).toEqual(["Jon's plan \\ v2"]);
    const [request] = box.requests.slice(before);
    expect(new URL(request?.url ?? "").searchParams.get("q")).toBe(
      "mimeType = 'application/vnd.google-apps.spreadsheet' and trashed = false and name contains 'jon\\'s' and name contains '\\\\ v2'",
    );
  });

  it("orders by any Drive sort key, ascending unless desc", async () => {
    const byName = await box.call("Sheets.SearchSpreadsheets", { order_by: "name", limit: 3 });
    expect(titles(byName)).toEqual(["Budget draft", "Customer list", "Event RSVPs"]);
    const oldest = await box.call("Sheets.SearchSpreadsheets", { order_by: "modifiedTime", limit: 2 });
    expect(titles(oldest)).toEqual(["Large export", "Budget draft"]);
    const refused = await box.call("Sheets.SearchSpreadsheets", { order_by: "size" });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain("order_by");
  });

  it("reaches shared drives, one shared drive, or the organisation's domain only when asked", async () => {
    const shared = await box.call("Sheets.SearchSpreadsheets", { include_shared_drives: true, limit: 50 });
    expect(titles(shared)).toEqual(
      expect.arrayContaining(["Finance forecast", "Payroll summary", "Quarterly report"]),
    );
    expect(titles(shared)).toHaveLength(MINE.length + 2);

    const before = box.requests.length;
    const oneDrive = await box.call("Sheets.SearchSpreadsheets", {
      search_only_in_shared_drive_id: "0AFinanceDrive",
    });
    expect(titles(oneDrive)).toEqual(["Finance forecast", "Payroll summary"]);
    const [request] = box.requests.slice(before);
    expect(Object.fromEntries(new URL(request?.url ?? "").searchParams)).toMatchObject({
      corpora: "drive",
      driveId: "0AFinanceDrive",
      includeItemsFromAllDrives: "true",
      supportsAllDrives: "true",
    });

    const domain = await box.call("Sheets.SearchSpreadsheets", {
      include_organization_domain_spreadsheets: true,
    });
    expect(titles(domain)).toEqual(["Company holidays", "Org chart"]);
  });

  it("refuses contradictory scopes and a token from another search", async () => {
    const both = await box.call("Sheets.SearchSpreadsheets", {
      search_only_in_shared_drive_id: "0AFinanceDrive",
      include_organization_domain_spreadsheets: true,
    });
    expect(both.text).toMatch(
      /^invalid_input: search_only_in_shared_drive_id and include_organization_domain/,
    );

    const first = await box.call("Sheets.SearchSpreadsheets", { limit: 2 });
    const mixed = await box.call("Sheets.SearchSpreadsheets", {
      spreadsheet_contains: ["budget"],
      pagination_token: first.data?.next_page_token,
    });
    expect(mixed.isError).toBe(true);
    expect(mixed.text).toMatch(
      /^invalid_input: Google drive\.files\.list failed with HTTP 400: Invalid Value/,
    );
  });

  it("refuses a limit above 50", async () => {
    const tooMany = await box.call("Sheets.SearchSpreadsheets", { limit: 51 });
    expect(tooMany.text).toMatch(
      /^invalid_input: Invalid arguments for Sheets\.SearchSpreadsheets: limit: .*50/,
    );
  });
});
