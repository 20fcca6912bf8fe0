import { toMcpTool } from "@toolkits/core/mcp";
import { useToolkitSandbox } from "@toolkits/core/testing";
import { describe, expect, it } from "vitest";
import {
  DRIVE_FILE_SCOPE,
  generateFilePickerUrl,
  getSpreadsheet,
  googleScopes,
  sheetsToolkit,
  USERINFO_EMAIL_SCOPE,
  USERINFO_PROFILE_SCOPE,
  whoAmI,
} from "../src/index.js";
import { SANDBOX_TOKEN } from "../src/sandbox/index.js";
import { SHEETS } from "./kit.js";

const box = useToolkitSandbox(sheetsToolkit, SHEETS);
/** This toolkit's share of the 100,000-byte catalogue every session shows a model. */
const CATALOGUE_SHARE_BYTES = 10_000;

const catalogueBytes = (): number =>
  sheetsToolkit.tools.reduce((sum, tool) => {
    const { name, description, inputSchema } = toMcpTool(tool);
    return sum + Buffer.byteLength(JSON.stringify({ name, description, inputSchema }));
  }, 0);

describe("the catalogue", () => {
  it("lists the 9 tools with the spec's names and parameters", () => {
    const params = Object.fromEntries(
      sheetsToolkit.tools.map((tool) => [
        tool.name,
        Object.keys(toMcpTool(tool).inputSchema.properties ?? {}).sort(),
      ]),
    );
    expect(params).toEqual({
      "Sheets.CreateSpreadsheet": ["data", "title"],
      "Sheets.GetSpreadsheet": [
        "max_cols",
        "max_rows",
        "sheet_id_or_name",
        "sheet_position",
        "spreadsheet_id",
        "start_col",
        "start_row",
      ],
      "Sheets.GetSpreadsheetMetadata": ["spreadsheet_id"],
      "Sheets.SearchSpreadsheets": [
        "include_organization_domain_spreadsheets",
        "include_shared_drives",
        "limit",
        "order_by",
        "pagination_token",
        "search_only_in_shared_drive_id",
        "spreadsheet_contains",
        "spreadsheet_not_contains",
      ],
      "Sheets.WriteToCell": ["column", "row", "sheet_name", "spreadsheet_id", "value"],
      "Sheets.UpdateCells": ["data", "sheet_id_or_name", "sheet_position", "spreadsheet_id"],
      "Sheets.AddNoteToCell": [
        "column",
        "note_text",
        "row",
        "sheet_id_or_name",
        "sheet_position",
        "spreadsheet_id",
      ],
      "Sheets.WhoAmI": [],
      "Sheets.GenerateFilePickerUrl": [],
    });
  });

  it(`stays within ${CATALOGUE_SHARE_BYTES} bytes of names, descriptions and input schemas`, () => {
    const bytes = catalogueBytes();
    console.warn(`sheets catalogue: ${bytes} bytes for ${sheetsToolkit.tools.length} tools`);
    expect(bytes).toBeLessThanOrEqual(CATALOGUE_SHARE_BYTES);
  });

  it("states the spec's defaults and bounds in the JSON Schemas", () => {
    const schema = toMcpTool(getSpreadsheet).inputSchema;
    expect(schema.required).toEqual(["spreadsheet_id"]);
    expect(schema.properties).toMatchObject({
      sheet_position: { type: "integer", minimum: 1, default: 1 },
      start_row: { type: "integer", minimum: 1, default: 1 },
      start_col: {
        default: "A",
        anyOf: [{ type: "string" }, { type: "integer", minimum: 1, maximum: 18278 }],
      },
      max_rows: { type: "integer", minimum: 1, maximum: 1000, default: 1000 },
      max_cols: { type: "integer", minimum: 1, maximum: 100, default: 100 },
    });
    const json = JSON.stringify(sheetsToolkit.tools.map((tool) => toMcpTool(tool).inputSchema));
    expect(json).not.toContain("9007199254740991");
    expect(json).not.toContain("$ref");
  });

  it("warns about formula injection wherever values are written", () => {
    for (const name of ["Sheets.CreateSpreadsheet", "Sheets.WriteToCell", "Sheets.UpdateCells"]) {
      const tool = sheetsToolkit.tools.find((candidate) => candidate.name === name);
      expect(tool?.description).toContain("USER_ENTERED");
      expect(tool?.description).toContain("formula injection");
    }
  });

  it("gives every tool all four hints, with writes marked as such", () => {
    const hints = Object.fromEntries(sheetsToolkit.tools.map((tool) => [tool.name, tool.hints]));
    expect(hints["Sheets.CreateSpreadsheet"]).toEqual({
      readOnly: false,
      destructive: false,
      idempotent: false,
      openWorld: true,
    });
    for (const name of ["Sheets.WriteToCell", "Sheets.UpdateCells", "Sheets.AddNoteToCell"]) {
      expect(hints[name]).toEqual({ readOnly: false, destructive: true, idempotent: true, openWorld: true });
    }
    for (const name of [
      "Sheets.GetSpreadsheet",
      "Sheets.GetSpreadsheetMetadata",
      "Sheets.SearchSpreadsheets",
      "Sheets.WhoAmI",
    ]) {
      expect(hints[name]).toEqual({ readOnly: true, destructive: false, idempotent: true, openWorld: true });
    }
  });
});

describe("scopes", () => {
  it("unions the scopes a set of tools needs", () => {
    expect(googleScopes(sheetsToolkit.tools)).toEqual([
      DRIVE_FILE_SCOPE,
      USERINFO_EMAIL_SCOPE,
      USERINFO_PROFILE_SCOPE,
    ]);
    expect(googleScopes([getSpreadsheet])).toEqual([DRIVE_FILE_SCOPE]);
    expect(googleScopes([generateFilePickerUrl])).toEqual([]);
    expect(googleScopes([whoAmI, generateFilePickerUrl])).toEqual([
      DRIVE_FILE_SCOPE,
      USERINFO_EMAIL_SCOPE,
      USERINFO_PROFILE_SCOPE,
    ]);
  });

  it("asks the host for exactly the tool's scopes", async () => {
    const asked: string[][] = [];
    const client = await box.connect(
      {},
      {
        tokens: (_provider, scopes) => {
          asked.push([...scopes]);
          return SANDBOX_TOKEN;
        },
      },
    );
    const result = await client.call("Sheets.WhoAmI");
    expect(result.isError, result.text).toBe(false);
    expect(new Set(asked.map((scopes) => scopes.join(" ")))).toEqual(
      new Set([[DRIVE_FILE_SCOPE, USERINFO_PROFILE_SCOPE, USERINFO_EMAIL_SCOPE].join(" ")]),
    );
  });
});
