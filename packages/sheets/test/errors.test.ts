import { isWatchedSecret, useToolkitSandbox } from "@toolkits/core/testing";
import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { sheetsToolkit } from "../src/index.js";
import { SANDBOX_TOKEN } from "../src/sandbox/index.js";
import { SHEETS } from "./kit.js";

const box = useToolkitSandbox(sheetsToolkit, SHEETS);
const QUARTERLY = "quarterly-report-0";
const SPREADSHEETS = "https://sheets.googleapis.com/v4/spreadsheets";
const quota = (retryAfter: string) =>
  HttpResponse.json(
    {
      error: {
        code: 429,
        message:
          "Quota exceeded for quota metric 'Read requests' and limit 'Read requests per minute per user'.",
        status: "RESOURCE_EXHAUSTED",
      },
    },
    { status: 429, headers: { "retry-after": retryAfter } },
  );

describe("access errors", () => {
  it("answers not_found with the file-picker hint for a spreadsheet the app cannot see", async () => {
    const missing = await box.call("Sheets.GetSpreadsheet", { spreadsheet_id: "no-such-sheet" });
    expect(missing.isError).toBe(true);
    expect(missing.text).toBe(
      "not_found: Google spreadsheets.get failed with HTTP 404: Requested entity was not found. This app only reaches spreadsheets it created or that the user picked (drive.file access): call Sheets.GenerateFilePickerUrl and ask the user to pick the file to grant access, or check the id with Sheets.SearchSpreadsheets.",
    );
  });

  it("answers forbidden with the same hint on 403", async () => {
    const denied = await box.call("Sheets.GetSpreadsheetMetadata", {
      spreadsheet_id: "confidential-salaries",
    });
    expect(denied.text).toMatch(
      /^forbidden: Google spreadsheets\.get failed with HTTP 403: The caller does not have permission\. /,
    );
    expect(denied.text).toContain("call Sheets.GenerateFilePickerUrl");
  });

  it("answers unauthenticated when Google rejects the token, and before any call when none is set", async () => {
    const expired = { GOOGLE_ACCESS_TOKEN: "expired-token-123" };
    const rejected = await box.call("Sheets.WhoAmI", {}, expired);
    expect(rejected.text).toMatch(
      /^unauthenticated: GET \/(oauth2\/v2\/userinfo|drive\/v3\/about) failed with HTTP 401: .*sign in to Google again\.$/,
    );
    expect(rejected.text).not.toContain("expired-token-123");

    const stale = await box.call("Sheets.GetSpreadsheet", { spreadsheet_id: QUARTERLY }, expired);
    expect(stale.text).toMatch(
      /^unauthenticated: Google spreadsheets\.get failed with HTTP 401: .*sign in to Google again\.$/,
    );

    const before = box.requests.length;
    const none = await box.call("Sheets.GetSpreadsheetMetadata", { spreadsheet_id: QUARTERLY }, {});
    expect(none.text).toBe(
      "unauthenticated: An access token for google is not configured. Set GOOGLE_ACCESS_TOKEN to an OAuth access token for google.",
    );
    expect(box.requests.length).toBe(before);
  });
});

describe("rate limits and retries", () => {
  it("retries a read after a 429, honouring Retry-After", async () => {
    box.server.use(http.get(`${SPREADSHEETS}/:id`, () => quota("0"), { once: true }));
    const meta = await box.call("Sheets.GetSpreadsheetMetadata", { spreadsheet_id: QUARTERLY });
    expect(meta.isError).toBe(false);
    expect(meta.data?.title).toBe("Quarterly report");
    expect(box.requests.map((request) => request.method)).toEqual(["GET", "GET"]);
  });

  it("gives up with rate_limited and the wait when Google asks for longer than the retry budget", async () => {
    box.server.use(http.get(`${SPREADSHEETS}/:id`, () => quota("120")));
    const limited = await box.call("Sheets.GetSpreadsheet", { spreadsheet_id: QUARTERLY });
    expect(limited.text).toBe(
      "rate_limited: Google spreadsheets.get failed with HTTP 429: Quota exceeded for quota metric 'Read requests' and limit 'Read requests per minute per user'. Google allows about 60 reads and 60 writes per minute per user; wait before retrying. Retry after 120 s.",
    );
    expect(box.requests.length).toBe(1);
  });

  it("stops after the retry limit when Google keeps answering 429", async () => {
    box.server.use(http.get(`${SPREADSHEETS}/:id`, () => quota("0")));
    const limited = await box.call("Sheets.GetSpreadsheetMetadata", { spreadsheet_id: QUARTERLY });
    expect(limited.text).toMatch(/^rate_limited: .* Retry after 1 s\.$/);
    expect(box.requests.length).toBe(4);
  });

  it("repeats spreadsheet creation after a 429, which Google refused unrun, and never after a 503", async () => {
    box.server.use(http.post(SPREADSHEETS, () => quota("0"), { once: true }));
    let before = box.requests.length;
    expect((await box.call("Sheets.CreateSpreadsheet", { title: "Refused once" })).isError).toBe(false);
    expect(box.requests.length - before).toBe(2);
    box.server.use(
      http.post(SPREADSHEETS, () => new HttpResponse("backend error", { status: 503 }), { once: true }),
    );
    before = box.requests.length;
    const unknown = await box.call("Sheets.CreateSpreadsheet", { title: "Once" });
    expect(box.requests.length - before).toBe(1);
    expect(unknown.text).toMatch(
      /^upstream_unavailable: Google spreadsheets\.create failed with HTTP 503: backend error\. The request may have reached the upstream, so it was not repeated/,
    );
  });

  it("retries the idempotent values write after a 503", async () => {
    box.server.use(
      http.post(
        `${SPREADSHEETS}/*`,
        () => new HttpResponse(null, { status: 503, headers: { "retry-after": "0" } }),
        { once: true },
      ),
    );
    const written = await box.call("Sheets.UpdateCells", {
      spreadsheet_id: QUARTERLY,
      data: '{"9": {"A": 1}}',
    });
    expect(written.isError).toBe(false);
    expect(box.requests.map((request) => request.method)).toEqual(["GET", "POST", "POST"]);
  });

  it("reports a create whose data write failed, so the model does not create it twice", async () => {
    box.server.use(http.post(`${SPREADSHEETS}/*`, () => quota("120"), { once: true }));
    const created = await box.call("Sheets.CreateSpreadsheet", {
      title: "Half done",
      data: '{"1": {"A": 1}}',
    });
    expect(created.text).toMatch(
      /^rate_limited: Spreadsheet \S+ was created \(https:\/\/docs\.google\.com\/spreadsheets\/d\/\S+\/edit\) but writing its data failed: .* Write the data with Sheets\.UpdateCells on that spreadsheet_id; do not create it again\. Retry after 120 s\.$/,
    );
    const search = await box.call("Sheets.SearchSpreadsheets", { spreadsheet_contains: ["half"] });
    expect(search.data?.spreadsheets).toHaveLength(1);
  });
});

describe("grid and sheet errors", () => {
  it("refuses out-of-grid writes before sending them, giving the grid size", async () => {
    const wide = await box.call("Sheets.WriteToCell", {
      spreadsheet_id: QUARTERLY,
      sheet_name: "Summary",
      column: "AA",
      row: 1,
      value: "x",
    });
    expect(wide.text).toBe(
      'invalid_input: Cell AA1 is outside sheet "Summary" (1000 rows, columns A to Z). Write inside the grid.',
    );
    const deep = await box.call("Sheets.UpdateCells", {
      spreadsheet_id: QUARTERLY,
      sheet_id_or_name: "Jon's Q1 data",
      data: '{"1": {"A": 1}, "201": {"A": 2}}',
    });
    expect(deep.text).toBe(
      'invalid_input: Cell A201 is outside sheet "Jon\'s Q1 data" (200 rows, columns A to J). Write inside the grid.',
    );
    const note = await box.call("Sheets.AddNoteToCell", {
      spreadsheet_id: QUARTERLY,
      column: "A",
      row: 1001,
      note_text: "x",
    });
    expect(note.text).toMatch(/^invalid_input: Cell A1001 is outside sheet "Summary"/);
    expect(box.requests.map((request) => request.method)).toEqual(["GET", "GET", "GET"]);
  });

  it("explains Google's own grid-limit error", async () => {
    box.server.use(
      http.post(`${SPREADSHEETS}/*`, () =>
        HttpResponse.json(
          {
            error: {
              code: 400,
              message: "Range ('Summary'!A1001) exceeds grid limits. Max rows: 1000, max columns: 26",
              status: "INVALID_ARGUMENT",
            },
          },
          { status: 400 },
        ),
      ),
    );
    const written = await box.call("Sheets.UpdateCells", {
      spreadsheet_id: QUARTERLY,
      data: '{"1": {"A": 1}}',
    });
    expect(written.text).toBe(
      "invalid_input: Google spreadsheets.values.batchUpdate failed with HTTP 400: Range ('Summary'!A1001) exceeds grid limits. Max rows: 1000, max columns: 26. Write inside the sheet's grid; Sheets.GetSpreadsheetMetadata gives each sheet's rows and columns.",
    );
  });

  it("lists the sheets that exist when the sheet asked for does not", async () => {
    const expected =
      'Its sheets: "Summary" (id 0, position 1), "Jon\'s Q1 data" (id 1839201, position 2), "Archive" (id 2024, position 3).';
    const byName = await box.call("Sheets.GetSpreadsheet", {
      spreadsheet_id: QUARTERLY,
      sheet_id_or_name: "Q2",
    });
    expect(byName.text).toBe(
      `not_found: Spreadsheet "Quarterly report" has no sheet titled or with id "Q2". ${expected}`,
    );
    const byPosition = await box.call("Sheets.UpdateCells", {
      spreadsheet_id: QUARTERLY,
      sheet_position: 4,
      data: '{"1":{"A":1}}',
    });
    expect(byPosition.text).toBe(
      `not_found: Spreadsheet "Quarterly report" has no sheet at position 4 (it has 3). ${expected}`,
    );
    const defaultName = await box.call("Sheets.WriteToCell", {
      spreadsheet_id: QUARTERLY,
      column: "A",
      row: 1,
      value: "x",
    });
    expect(defaultName.text).toContain('has no sheet titled or with id "Sheet1"');
  });

  it("matches a sheet title ignoring case after exact titles and ids", async () => {
    const read = await box.call("Sheets.GetSpreadsheet", {
      spreadsheet_id: QUARTERLY,
      sheet_id_or_name: "summary",
      max_rows: 1,
      max_cols: 1,
    });
    expect(read.data?.sheet).toMatchObject({ title: "Summary" });
  });
});

describe("bad input is refused before anything is sent", () => {
  const cases: [string, string][] = [
    ["not json", "invalid_input: data is not valid JSON"],
    ["[1, 2]", "invalid_input: data must be a JSON object of rows"],
    ['{"0": {"A": 1}}', 'invalid_input: data["0"]: row keys must be whole numbers from 1'],
    ['{"1.5": {"A": 1}}', 'invalid_input: data["1.5"]: row keys must be whole numbers from 1'],
    ['{"1": [1]}', 'invalid_input: data["1"] must be an object of column letters to values'],
    ['{"1": {"A1": 1}}', 'invalid_input: data["1"]["A1"] must be column letters A to ZZZ'],
    [
      '{"1": {"A": null}}',
      'invalid_input: data["1"]["A"] is null: values must be a string, number or boolean',
    ],
    [
      '{"1": {"A": {"x": 1}}}',
      'invalid_input: data["1"]["A"] is {"x":1}: values must be a string, number or boolean',
    ],
    ["{}", "invalid_input: data holds no cells"],
  ];
  it.each(cases)("UpdateCells data %s", async (data, message) => {
    const refused = await box.call("Sheets.UpdateCells", { spreadsheet_id: QUARTERLY, data });
    expect(refused.text.startsWith(message)).toBe(true);
    expect(box.requests).toEqual([]);
  });

  it("shows the expected format in cell data errors", async () => {
    const refused = await box.call("Sheets.CreateSpreadsheet", { data: '{"x": {}}' });
    expect(refused.text).toContain(
      'Expected a JSON object like {"1": {"A": "Name", "B": "Total"}, "2": {"A": "Ann", "B": 12.5}}.',
    );
  });

  it.each([
    ["A2", "start_col (letters or a 1-based number) must be column letters A to ZZZ"],
    ["0", "start_col (letters or a 1-based number) must be column letters A to ZZZ"],
    [0, "start_col"],
    ["AAAA", "must be column letters A to ZZZ"],
  ])("GetSpreadsheet start_col %j", async (start_col, message) => {
    const before = box.requests.length;
    const refused = await box.call("Sheets.GetSpreadsheet", { spreadsheet_id: QUARTERLY, start_col });
    expect(refused.text).toMatch(/^invalid_input: /);
    expect(refused.text).toContain(message);
    expect(box.requests.length).toBe(before);
  });

  it.each([
    [{ max_rows: 1001 }, "max_rows"],
    [{ max_cols: 101 }, "max_cols"],
    [{ start_row: 0 }, "start_row"],
    [{ sheet_position: 0 }, "sheet_position"],
  ])("GetSpreadsheet bounds %j", async (args, parameter) => {
    const refused = await box.call("Sheets.GetSpreadsheet", { spreadsheet_id: QUARTERLY, ...args });
    expect(refused.text).toMatch(
      new RegExp(`^invalid_input: Invalid arguments for Sheets\\.GetSpreadsheet: ${parameter}: `),
    );
  });

  it("refuses a bad column or row in WriteToCell and AddNoteToCell", async () => {
    const column = await box.call("Sheets.WriteToCell", {
      spreadsheet_id: QUARTERLY,
      column: "3",
      row: 1,
      value: "x",
    });
    expect(column.text).toBe(
      'invalid_input: column must be column letters A to ZZZ (like "A", "F" or "AZ"), not "3".',
    );
    const row = await box.call("Sheets.AddNoteToCell", {
      spreadsheet_id: QUARTERLY,
      column: "A",
      row: 0,
      note_text: "x",
    });
    expect(row.text).toMatch(/^invalid_input: Invalid arguments for Sheets\.AddNoteToCell: row: /);
  });

  it("never shows the access token in an error", async () => {
    box.server.use(
      http.get(`${SPREADSHEETS}/:id`, () =>
        HttpResponse.json({ error: { code: 400, message: `bad token ${SANDBOX_TOKEN}` } }, { status: 400 }),
      ),
    );
    const failed = await box.call("Sheets.GetSpreadsheetMetadata", { spreadsheet_id: QUARTERLY });
    expect(failed.text).toBe(
      "invalid_input: Google spreadsheets.get failed with HTTP 400: bad token [redacted].",
    );
  });
});

it("runs under the suite's leak scan, which watches the sandbox's credential", () => {
  expect(isWatchedSecret(SANDBOX_TOKEN)).toBe(true);
});
