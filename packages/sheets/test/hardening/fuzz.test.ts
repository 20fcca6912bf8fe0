import { fuzzTools, useToolkitSandbox } from "@toolkits/core/testing";
import { sheetsToolkit } from "../../src/index.js";
import { seed } from "../../src/sandbox/state.js";
import { googleContract, SHEETS } from "../kit.js";

// Property-based input tests of all 9 tools against the sandbox, through the MCP adapter.
// Errors a schema-valid call may get: a rule the JSON Schema cannot express (A1 columns, the data
// map's JSON, grid limits), a spreadsheet or sheet the drive lacks, or one the app may not open.
const KNOWN_ERROR = /^(invalid_input|not_found|forbidden): /;

const box = useToolkitSandbox(sheetsToolkit, SHEETS);

/** Values the sandbox drive knows, so that valid arguments also get past the lookups. */
function samples(): Record<string, unknown[]> {
  const sheets = ["Summary", "Jon's Q1 data", "Archive", "Sheet1", "0"];
  return {
    spreadsheet_id: seed()
      .files.slice(0, 4)
      .map((file) => file.id),
    sheet_id_or_name: sheets,
    sheet_name: sheets,
    column: ["A", "B", "AZ", "c"],
    start_col: ["A", "C", 2],
    data: ['{"1":{"A":"Item","B":"Qty"},"2":{"A":"Pens","B":3}}', '{"3":{"C":"=SUM(1,2)","D":true}}', "{}"],
    value: ["42", "=1+1", "hello"],
    spreadsheet_contains: [["Budget"], ["report"]],
    search_only_in_shared_drive_id: ["0AFinanceDrive"],
  };
}

fuzzTools(box, sheetsToolkit.tools, {
  runs: 40,
  knownError: KNOWN_ERROR,
  samples,
  contract: googleContract,
  // The picker needs the server's public URL besides the sandbox's configuration.
  env: () => ({ ...box.env, TOOLKITS_PUBLIC_URL: "http://127.0.0.1:9/" }),
});
