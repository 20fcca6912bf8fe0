import * as core from "@toolkits/core";
import * as aiSdk from "@toolkits/core/ai-sdk";
import * as openai from "@toolkits/core/openai";
import { readmeSuite } from "@toolkits/testkit/readme-snippets";
import { describe, expect, it, vi } from "vitest";
import * as sheets from "../src/index.js";

// The README's library snippets, as a reader copies them: every ```ts block after a
// `<!-- readme-test -->` line is type-checked against the sources and run on the sandbox.

/** What the snippets import, by the names a reader imports them by. */
const MODULES: Record<string, unknown> = {
  "@toolkits/core": core,
  "@toolkits/core/ai-sdk": aiSdk,
  "@toolkits/core/openai": openai,
  "@toolkits/sheets": sheets,
};

describe("the README's library snippets", () => {
  // Checks that the README has 2 snippets and that they type-check; restores mocks after each test.
  const { blocks, run } = readmeSuite(import.meta.url, MODULES, 2);

  it("run the tools on the sandbox with sandboxHost and invokeTool", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    const { created, read } = await run(blocks[0] ?? "");
    expect(created.ok).toBe(true);
    expect(read.ok).toBe(true);
    expect(read.result.spreadsheet_id).toBe(created.result.spreadsheet_id);
    const [[total]] = log.mock.calls as [[unknown]];
    expect(total).toEqual({ A: { value: "Total" }, B: { value: "=SUM(B1:B2)", formatted: "7.5" } });
  });

  it("hand the tools to the AI SDK and to OpenAI, strict, running calls on the sandbox", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    const { tools, chat, responses } = await run(blocks[1] ?? "");
    const names = sheets.sheetsToolkit.tools.map((tool) => tool.name.replace(".", "_"));
    expect(Object.keys(tools)).toEqual(names);
    const executed = await tools.Sheets_GetSpreadsheetMetadata.execute(
      { spreadsheet_id: "quarterly-report-0" },
      { toolCallId: "call-1", messages: [] },
    );
    expect(executed.sheets.map((sheet: { title: string }) => sheet.title)).toContain("Jon's Q1 data");

    expect(chat.tools.map((entry: openai.FunctionTool) => entry.function.name)).toEqual(names);
    for (const { function: fn } of chat.tools as openai.FunctionTool[]) {
      expect(fn.strict).toBe(true);
      expect(fn.parameters.additionalProperties).toBe(false);
      expect(fn.parameters.required).toEqual(Object.keys(fn.parameters.properties as object));
    }
    expect(responses.tools.map((entry: openai.ResponsesFunctionTool) => entry.name)).toEqual(names);
    expect(responses.tools.every((entry: openai.ResponsesFunctionTool) => entry.strict)).toBe(true);

    const [[answer]] = log.mock.calls as [[string]];
    const found = JSON.parse(answer);
    expect(found.spreadsheets.map((file: { id: string }) => file.id)).toContain("quarterly-report-0");

    // The loops' calls, as the comments show them, on what a model sends.
    const [message] = await chat.runCalls([
      { id: "call_1", type: "function", function: { name: "Sheets_WhoAmI", arguments: "{}" } },
    ]);
    expect(message).toMatchObject({ role: "tool", tool_call_id: "call_1" });
    expect(JSON.parse(message.content).user.email).toBeTruthy();
    const [output] = await responses.runCalls([
      {
        type: "function_call",
        call_id: "fc_1",
        name: "Sheets_GetSpreadsheet",
        arguments: '{"spreadsheet_id": "no-such-spreadsheet"}',
      },
    ]);
    expect(output).toMatchObject({ type: "function_call_output", call_id: "fc_1" });
    expect(JSON.parse(output.output).error.kind).toBe("not_found");
  });
});
