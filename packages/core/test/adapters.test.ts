import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { HttpResponse, http } from "msw";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { toAiSdkTools } from "../src/adapters/ai-sdk.js";
import { functionNames } from "../src/adapters/names.js";
import { toFunctionTools } from "../src/adapters/openai.js";
import { createHttpClient, defineTool, envHost, READ_ONLY_HINTS } from "../src/index.js";

const server = setupServer(
  http.get("https://upstream.test/things/:id", ({ params, request }) => {
    if (request.headers.get("authorization") !== "Bearer token-123456")
      return HttpResponse.json({ error: { message: "Bad token" } }, { status: 401 });
    if (params.id === "nope")
      return HttpResponse.json(
        { error: { message: "No such thing; Test.GetThing takes ids like 42" } },
        { status: 404 },
      );
    return HttpResponse.json({ id: params.id, name: `Thing ${params.id}` });
  }),
);
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterAll(() => server.close());

const getThing = defineTool({
  name: "Test.GetThing",
  title: "Get thing",
  description: "Gets one thing by id.",
  input: z.object({ thing_id: z.string().min(1).describe("Thing id") }),
  output: z.object({ id: z.string(), name: z.string() }),
  hints: READ_ONLY_HINTS,
  auth: { oauth: { provider: "test", scopes: [] } },
  async handler({ thing_id }, context) {
    const { value: token } = await context.credential();
    const client = createHttpClient({
      baseUrl: "https://upstream.test",
      authorization: () => `Bearer ${token.reveal()}`,
      fetch: context.fetch,
    });
    const { data } = await client.request<{ id: string; name: string }>({
      method: "GET",
      path: "/things/{id}",
      pathParams: { id: thing_id },
      signal: context.signal,
    });
    return data ?? { id: thing_id, name: "" };
  },
});

const host = envHost({ TEST_ACCESS_TOKEN: "token-123456" });

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

/** The model's first step: one call that succeeds and one the upstream answers 404. */
const TOOL_CALLS = [
  { type: "tool-call", toolCallId: "c1", toolName: "Test_GetThing", input: '{"thing_id":"42"}' },
  { type: "tool-call", toolCallId: "c2", toolName: "Test_GetThing", input: '{"thing_id":"nope"}' },
] as const;

/** The tool message the model must receive back for `TOOL_CALLS`, in either SDK's prompt format. */
const TOOL_MESSAGE = {
  role: "tool",
  content: [
    {
      type: "tool-result",
      toolCallId: "c1",
      toolName: "Test_GetThing",
      output: { type: "json", value: { id: "42", name: "Thing 42" } },
    },
    {
      type: "tool-result",
      toolCallId: "c2",
      toolName: "Test_GetThing",
      output: {
        type: "error-text",
        value:
          "not_found: GET /things/{id} failed with HTTP 404: No such thing; Test_GetThing takes ids like 42.",
      },
    },
  ],
};

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
    expect(result.steps.flatMap((step) => step.toolResults).map((part) => part.output)).toEqual([
      { id: "42", name: "Thing 42" },
    ]);
    expect(sentBack).toEqual([TOOL_MESSAGE]);
    expect(result.text).toBe("done");
  });
});
