import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { toAiSdkTools } from "../src/adapters/ai-sdk.js";
import { functionNames } from "../src/adapters/names.js";
import { toFunctionTools } from "../src/adapters/openai.js";
import { expectThingRun, getThing, host, TOOL_CALLS, useThingServer } from "./support/thing-tool.js";

useThingServer();

describe("function names", () => {
  it("maps dotted names to [a-zA-Z0-9_-] and back", () => {
    const { functions, toTool } = functionNames([getThing]);
    expect(functions.map(({ name }) => name)).toEqual(["Test_GetThing"]);
    expect(toTool("Test_GetThing")).toBe(getThing);
    expect(toTool("Test.GetThing")).toBe(getThing);
  });

  it("names tools as functions in descriptions, parameter descriptions and results", async () => {
    const listThings = {
      ...getThing,
      name: "Test.ListThings",
      description: "Lists things; Test.GetThing gives one.",
      input: z.object({ after: z.string().optional().describe("An id from Test.GetThing") }),
    };
    const set = toFunctionTools([getThing, listThings], host);
    expect(set.tools[1]?.function.description).toBe("Lists things; Test_GetThing gives one.");
    expect(JSON.stringify(set.tools[1]?.function.parameters)).toContain("An id from Test_GetThing");
    expect(JSON.stringify(set.tools)).not.toContain("Test.");
  });

  it("refuses two tools that would share a function name", () => {
    expect(() => functionNames([getThing, { ...getThing, name: "Test_GetThing" }])).toThrow(
      "Tools Test.GetThing and Test_GetThing would both be served as Test_GetThing.",
    );
  });
});

describe("Vercel AI SDK tools", () => {
  it("run inside AI SDK 6's generateText: results and error texts reach the model", async () => {
    let sentBack: unknown[] = [];
    const usage = {
      inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 1, text: 1, reasoning: 0 },
    };
    const model = new MockLanguageModelV3({
      doGenerate: async ({ prompt }) => {
        sentBack = prompt.filter((message) => message.role === "tool");
        return sentBack.length
          ? {
              content: [{ type: "text", text: "done" }],
              finishReason: { unified: "stop", raw: "stop" },
              usage,
              warnings: [],
            }
          : {
              content: [...TOOL_CALLS],
              finishReason: { unified: "tool-calls", raw: "tool_calls" },
              usage,
              warnings: [],
            };
      },
    });
    const tools = toAiSdkTools([getThing], host);
    expect(Object.keys(tools)).toEqual(["Test_GetThing"]);
    const result = await generateText({ model, tools, prompt: "get things", stopWhen: stepCountIs(3) });
    expectThingRun(result, sentBack);
  });
});
