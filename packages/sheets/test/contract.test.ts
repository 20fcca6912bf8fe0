import { describe, expect, it } from "vitest";
import { contractProblems, discovery, methodOf } from "./contract.js";
import { useSandbox } from "./harness.js";

const box = useSandbox();
const SHEETS = "https://sheets.googleapis.com/v4/spreadsheets";

describe("requests match Google's discovery documents", () => {
  it("a session using every tool calls only declared methods, paths and parameters", async () => {
    const call = await box.connect();
    const before = box.count;
    const created = await call("Sheets.CreateSpreadsheet", {
      title: "Contract",
      data: '{"1":{"A":1,"B":"=A1"}}',
    });
    const id = created.data.spreadsheet_id;
    await call("Sheets.WriteToCell", { spreadsheet_id: id, column: "C", row: 1, value: "TRUE" });
    await call("Sheets.UpdateCells", { spreadsheet_id: id, data: '{"2":{"A":2}}' });
    await call("Sheets.AddNoteToCell", { spreadsheet_id: id, column: "A", row: 2, note_text: "two" });
    await call("Sheets.GetSpreadsheet", { spreadsheet_id: id, start_col: 2 });
    await call("Sheets.GetSpreadsheetMetadata", { spreadsheet_id: id });
    await call("Sheets.SearchSpreadsheets", {
      spreadsheet_contains: ["contract"],
      include_shared_drives: true,
    });
    await call("Sheets.SearchSpreadsheets", { search_only_in_shared_drive_id: "0AFinanceDrive" });
    await call("Sheets.WhoAmI");

    const requests = await box.requests(before);
    expect(requests.flatMap(contractProblems)).toEqual([]);
    const called = new Set(requests.map((request) => methodOf(request)?.id));
    const vendored = discovery.apis.flatMap((api) => Object.keys(api.methods));
    expect([...called].sort()).toEqual([...vendored].sort());
  });

  it("flags unknown paths, undeclared or mistyped parameters and unknown body fields", () => {
    expect(contractProblems({ method: "GET", url: `${SHEETS}/abc/values/A1`, body: "" })).toEqual([
      `GET ${SHEETS}/abc/values/A1: no such method in the discovery documents`,
    ]);
    expect(
      contractProblems({
        method: "GET",
        url: `${SHEETS}/abc?includeGridData=yes&colour=red&fields=a`,
        body: "",
      }),
    ).toEqual([
      "sheets.spreadsheets.get: includeGridData=yes is not a boolean",
      "sheets.spreadsheets.get: query parameter colour is not declared",
    ]);
    expect(
      contractProblems({
        method: "PUT",
        url: `${SHEETS}/abc/values/A1?valueInputOption=TYPED&valueInputOption=RAW`,
        body: '{"range":"A1","cells":[]}',
      }),
    ).toEqual([
      "sheets.spreadsheets.values.update: valueInputOption repeated but not repeatable",
      "sheets.spreadsheets.values.update: valueInputOption=TYPED is not one of INPUT_VALUE_OPTION_UNSPECIFIED, RAW, USER_ENTERED",
      "sheets.spreadsheets.values.update: body field cells is not in ValueRange",
    ]);
    expect(
      contractProblems({
        method: "GET",
        url: "https://www.googleapis.com/drive/v3/files?pageSize=ten",
        body: "",
      }),
    ).toEqual(["drive.files.list: pageSize=ten is not an integer"]);
    expect(
      contractProblems({ method: "GET", url: "https://www.googleapis.com/oauth2/v2/userinfo", body: "{}" }),
    ).toEqual(["oauth2.userinfo.get: takes no body"]);
  });
});
