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
  http.get("https://upstream.test/things/:id", ({ params, request }) =>
    request.headers.get("authorization") === "Bearer token-123456"
      ? HttpResponse.json({ id: params.id, name: `Thing ${params.id}` })
      : HttpResponse.json({ error: { message: "Bad token" } }, { status: 401 }),
  ),
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
    const token = await context.accessToken("test", []);
    const client = createHttpClient({
      baseUrl: "https://upstream.test",
      authorization: () => `Bearer ${token.reveal()}`,
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

describe("OpenAI-style function tools", () => {
  const set = toFunctionTools([getThing], host);

  it("lists function definitions with JSON Schema parameters", () => {
    expect(set.tools).toEqual([
      {
        type: "function",
        function: {
          name: "Test_GetThing",
          description: "Gets one thing by id.",
          parameters: {
            type: "object",
            properties: { thing_id: { type: "string", minLength: 1, description: "Thing id" } },
            required: ["thing_id"],
          },
        },
      },
    ]);
  });

  it("runs a function call and answers JSON, errors included", async () => {
    expect(JSON.parse(await set.call("Test_GetThing", '{"thing_id":"a/b"}'))).toEqual({
      id: "a/b",
      name: "Thing a/b",
    });
    const invalid = JSON.parse(await set.call("Test_GetThing", "{}"));
    expect(invalid.error.kind).toBe("invalid_input");
    expect(invalid.error.message).toContain("thing_id");
    expect(JSON.parse(await set.call("Nope", "{}")).error.message).toBe("No function named Nope.");
  });
});

describe("Vercel AI SDK tools", () => {
  it("runs a tool the model calls inside generateText", async () => {
    const model = new MockLanguageModelV3({
      doGenerate: async ({ prompt }) => {
        const answered = prompt.some((message) => message.role === "tool");
        const usage = {
          inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 1, text: 1, reasoning: 0 },
        };
        return answered
          ? {
              content: [{ type: "text", text: "done" }],
              finishReason: { unified: "stop", raw: "stop" },
              usage,
              warnings: [],
            }
          : {
              content: [
                {
                  type: "tool-call",
                  toolCallId: "c1",
                  toolName: "Test_GetThing",
                  input: '{"thing_id":"42"}',
                },
              ],
              finishReason: { unified: "tool-calls", raw: "tool_calls" },
              usage,
              warnings: [],
            };
      },
    });
    const result = await generateText({
      model,
      tools: toAiSdkTools([getThing], host),
      prompt: "get thing 42",
      stopWhen: stepCountIs(3),
    });
    const toolResults = result.steps.flatMap((step) => step.toolResults);
    expect(toolResults.map((part) => part.output)).toEqual([{ id: "42", name: "Thing 42" }]);
    expect(result.text).toBe("done");
  });
});
