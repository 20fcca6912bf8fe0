import { generateText, stepCountIs, type ToolSet } from "ai-v5";
import { MockLanguageModelV2 } from "ai-v5/test";
import { describe, expect, it, vi } from "vitest";
import { toAiSdkTools } from "../src/adapters/ai-sdk.js";
import { expectThingRun, getThing, host, TOOL_CALLS, useThingServer } from "./support/thing-tool.js";

// What an AI SDK 5 project gets: the adapter's own `ai` import resolving to AI SDK 5. (Tools made by
// one major version do not run in the other's generateText, so the adapter must use the project's.)
vi.mock("ai", () => import("ai-v5"));

useThingServer();

describe("Vercel AI SDK 5 tools", () => {
  it("run inside AI SDK 5's generateText: results and error texts reach the model", async () => {
    let sentBack: unknown[] = [];
    const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
    const model = new MockLanguageModelV2({
      doGenerate: async ({ prompt }) => {
        sentBack = prompt.filter((message) => message.role === "tool");
        return sentBack.length
          ? { content: [{ type: "text", text: "done" }], finishReason: "stop", usage, warnings: [] }
          : {
              content: [...TOOL_CALLS],
              finishReason: "tool-calls",
              usage,
              warnings: [],
            };
      },
    });
    // The adapter's declared types come from the `ai` this repository compiles against (AI SDK 6); an
    // AI SDK 5 project's compiler reads its own `ai` there and needs no cast.
    const tools = toAiSdkTools([getThing], host) as ToolSet;
    expect(Object.keys(tools)).toEqual(["Test_GetThing"]);
    const result = await generateText({ model, tools, prompt: "get things", stopWhen: stepCountIs(3) });
    expectThingRun(result, sentBack);
  });
});
