import { useToolkitSandbox } from "@toolkits/core/testing";
import { describe, expect, it } from "vitest";
import { sheetsToolkit } from "../src/index.js";
import { googleContract, SHEETS } from "./kit.js";

const box = useToolkitSandbox(sheetsToolkit, SHEETS);
const SPREADSHEETS = "https://sheets.googleapis.com/v4/spreadsheets";

describe("requests match Google's discovery documents, in their OpenAPI form", () => {
  it("a session using every tool calls only declared methods, paths and parameters", async () => {
    const created = await box.call("Sheets.CreateSpreadsheet", {
      title: "Contract",
      data: '{"1":{"A":1,"B":"=A1"}}',
    });
    const id = created.data?.spreadsheet_id;
    await box.call("Sheets.WriteToCell", { spreadsheet_id: id, column: "C", row: 1, value: "TRUE" });
    await box.call("Sheets.UpdateCells", { spreadsheet_id: id, data: '{"2":{"A":2}}' });
    await box.call("Sheets.AddNoteToCell", { spreadsheet_id: id, column: "A", row: 2, note_text: "two" });
    await box.call("Sheets.GetSpreadsheet", { spreadsheet_id: id, start_col: 2 });
    await box.call("Sheets.GetSpreadsheetMetadata", { spreadsheet_id: id });
    await box.call("Sheets.SearchSpreadsheets", {
      spreadsheet_contains: ["contract"],
      include_shared_drives: true,
    });
    await box.call("Sheets.SearchSpreadsheets", { search_only_in_shared_drive_id: "0AFinanceDrive" });
    await box.call("Sheets.WhoAmI");

    const requests = box.requests;
    expect(requests.flatMap((request) => googleContract.problems(request))).toEqual([]);
    const called = new Set(requests.map((request) => googleContract.operationOf(request)?.id));
    const vendored = googleContract.operations.map((operation) => operation.id);
    expect([...called].sort()).toEqual([...vendored].sort());
  });

  it("flags unknown paths, undeclared, mistyped or repeated parameters, blank ids and unknown body fields", () => {
    const problems = (method: string, url: string, body = "") =>
      googleContract.problems({ method, url, headers: { "content-type": "application/json" }, body });
    expect(problems("GET", `${SPREADSHEETS}/abc/values/A1`)).toEqual([
      `GET ${SPREADSHEETS}/abc/values/A1 is not an operation of Google's Sheets, Drive and OAuth2 APIs`,
    ]);
    expect(problems("GET", `${SPREADSHEETS}/abc?includeGridData=yes&colour=red&fields=a`)).toEqual([
      "GET /v4/spreadsheets/{spreadsheetId}: includeGridData=yes is not a boolean",
      "GET /v4/spreadsheets/{spreadsheetId}: query parameter colour is not declared",
    ]);
    expect(
      problems(
        "PUT",
        `${SPREADSHEETS}/abc/values/A1?valueInputOption=TYPED&valueInputOption=RAW`,
        '{"range":"A1","cells":[]}',
      ),
    ).toEqual([
      "PUT /v4/spreadsheets/{spreadsheetId}/values/{range}: valueInputOption is repeated but takes one value",
      "PUT /v4/spreadsheets/{spreadsheetId}/values/{range}: valueInputOption=TYPED is not one of INPUT_VALUE_OPTION_UNSPECIFIED, RAW, USER_ENTERED",
      "PUT /v4/spreadsheets/{spreadsheetId}/values/{range}: body / has cells, which its schema does not declare",
    ]);
    expect(problems("GET", `${SPREADSHEETS}/abc?ranges=A1&ranges=B2`)).toEqual([]);
    expect(problems("GET", `${SPREADSHEETS}/%20`)).toEqual([
      'GET /v4/spreadsheets/{spreadsheetId}: {spreadsheetId}=  must match pattern "\\S"',
    ]);
    expect(problems("GET", "https://www.googleapis.com/drive/v3/files?pageSize=ten")).toEqual([
      "GET /drive/v3/files: pageSize=ten is not an integer",
    ]);
    expect(problems("GET", "https://www.googleapis.com/oauth2/v2/userinfo", "{}")).toEqual([
      "GET /oauth2/v2/userinfo: takes no body",
    ]);
    expect(problems("POST", SPREADSHEETS)).toEqual(["POST /v4/spreadsheets: body is missing"]);
  });
});
