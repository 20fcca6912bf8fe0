import { toMcpTool } from "@toolkits/core/mcp";
import { argumentsFor, invalidArgumentsFor, type JsonSchema, namesParameter } from "@toolkits/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sheetsToolkit } from "../../src/index.js";
import { sandbox } from "../../src/sandbox/index.js";
import { seed } from "../../src/sandbox/state.js";
import { contractProblems } from "../contract.js";
import { SIGNED_IN, useSandbox } from "../harness.js";

// Property-based input tests of all 9 tools against the sandbox, through the MCP adapter.
const RUNS = 40;
// Errors a schema-valid call may get: a rule the JSON Schema cannot express (A1 columns, the data
// map's JSON, grid limits), a spreadsheet or sheet the drive lacks, or one the app may not open.
const KNOWN_ERROR = /^(invalid_input|not_found|forbidden): /;
// The picker needs its configuration (the sandbox's settings) and the server's public URL.
const ENV = { ...SIGNED_IN, ...sandbox().settings, TOOLKITS_PUBLIC_URL: "http://127.0.0.1:9/" };

const box = useSandbox();

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

describe.each(
  sheetsToolkit.tools.map((tool) => [tool.name, toMcpTool(tool).inputSchema as JsonSchema] as const),
)("%s", (name, schema) => {
  it("refuses arguments that break its input schema as invalid_input naming the parameter, sending nothing", async () => {
    const call = await box.connect(ENV);
    await fc.assert(
      fc.asyncProperty(invalidArgumentsFor(schema, { samples: samples() }), async ({ args, parameter }) => {
        const before = box.count;
        const result = await call(name, args);
        expect(result.text).toMatch(/^invalid_input: /);
        expect(namesParameter(result.text, parameter), result.text).toBe(true);
        expect(box.count).toBe(before);
      }),
      { numRuns: RUNS },
    );
  });

  it("answers arguments that satisfy its schema with a result or a known error, sending conforming requests", async () => {
    const call = await box.connect(ENV);
    await fc.assert(
      fc.asyncProperty(argumentsFor(schema, { samples: samples() }), async (args) => {
        const before = box.count;
        const result = await call(name, args);
        if (result.isError) expect(result.text).toMatch(KNOWN_ERROR);
        expect((await box.requests(before)).flatMap(contractProblems)).toEqual([]);
      }),
      { numRuns: RUNS },
    );
  });
});
