import * as core from "@toolkits/core";
import * as aiSdk from "@toolkits/core/ai-sdk";
import * as openai from "@toolkits/core/openai";
import { readmeSuite } from "@toolkits/testkit/readme-snippets";
import { describe, expect, it, vi } from "vitest";
import * as marketing from "../src/index.js";

// The README's library snippets, as a reader copies them: every ```ts block after a
// `<!-- readme-test -->` line is type-checked against the sources and run on the sandbox.

/** What the snippets import, by the names a reader imports them by. */
const MODULES: Record<string, unknown> = {
  "@toolkits/core": core,
  "@toolkits/core/ai-sdk": aiSdk,
  "@toolkits/core/openai": openai,
  "@toolkits/marketing": marketing,
};

describe("the README's library snippets", () => {
  // Checks that the README has 2 snippets and that they type-check; restores mocks after each test.
  const { blocks, run } = readmeSuite(import.meta.url, MODULES, 2);

  it("run the tools on the sandbox with sandboxHost and invokeTool", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    const { count, schema, created } = await run(blocks[0] ?? "");
    expect(count).toEqual({ ok: true, result: { count: 25 } });
    expect(schema.ok).toBe(true);
    expect(schema.result.schema.properties).toHaveProperty("segment");
    expect(created.ok).toBe(true);
    const [[printedCount], [segment]] = log.mock.calls as [[number], [unknown]];
    expect(printedCount).toBe(25);
    expect(segment).toMatchObject({ id: expect.any(Number), name: "Trial users", type: "manual" });
  });

  it("hand the tools to the AI SDK and to OpenAI, strict, running calls on the sandbox", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    const { segmentTools, tools, chat, responses } = await run(blocks[1] ?? "");
    const names = segmentTools.map((tool: { name: string }) => tool.name.replace(".", "_"));
    expect(names).toContain("MarketingApi_GetAllSegments");
    expect(names).toContain("MarketingApi_GetSegmentMembers");
    expect(Object.keys(tools)).toEqual(names);
    const executed = await tools.MarketingApi_GetSegmentMembers.execute(
      { segment_identifier: 7, maximum_results_per_page: 10 },
      { toolCallId: "call-1", messages: [] },
    );
    expect(executed.identifiers).toHaveLength(10);
    expect(executed.more).toBe(true);

    expect(chat.tools.map((entry: openai.FunctionTool) => entry.function.name)).toEqual(names);
    for (const { function: fn } of chat.tools as openai.FunctionTool[]) {
      expect(fn.strict).toBe(true);
      expect(fn.parameters.additionalProperties).toBe(false);
      expect(fn.parameters.required).toEqual(Object.keys(fn.parameters.properties as object));
    }
    expect(responses.tools.map((entry: openai.ResponsesFunctionTool) => entry.name)).toEqual(names);
    expect(responses.tools.every((entry: openai.ResponsesFunctionTool) => entry.strict)).toBe(true);

    const [[answer]] = log.mock.calls as [[string]];
    expect(answer).toBe('{"count":25}');

    // The loops' calls, as the comments show them, on what a model sends.
    const [message] = await chat.runCalls([
      { id: "call_1", type: "function", function: { name: "MarketingApi_GetAllSegments", arguments: "{}" } },
    ]);
    expect(message).toMatchObject({ role: "tool", tool_call_id: "call_1" });
    expect(JSON.parse(message.content).segments.length).toBeGreaterThan(0);
    const [output] = await responses.runCalls([
      {
        type: "function_call",
        call_id: "fc_1",
        name: "MarketingApi_GetSegmentInfo",
        arguments: '{"segment_identifier": 999999}',
      },
    ]);
    expect(output).toMatchObject({ type: "function_call_output", call_id: "fc_1" });
    expect(JSON.parse(output.output).error.kind).toBe("not_found");
  });
});
