import { generateText, stepCountIs, type ToolSet } from "ai-v5";
import { MockLanguageModelV2 } from "ai-v5/test";
import { HttpResponse, http } from "msw";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { toAiSdkTools } from "../src/adapters/ai-sdk.js";
import { createHttpClient, defineTool, envHost, READ_ONLY_HINTS } from "../src/index.js";

// What an AI SDK 5 project gets: the adapter's own `ai` import resolving to AI SDK 5. (Tools made by
// one major version do not run in the other's generateText, so the adapter must use the project's.)
vi.mock("ai", () => import("ai-v5"));

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
              content: [
                {
                  type: "tool-call",
                  toolCallId: "c1",
                  toolName: "Test_GetThing",
                  input: '{"thing_id":"42"}',
                },
                {
                  type: "tool-call",
                  toolCallId: "c2",
                  toolName: "Test_GetThing",
                  input: '{"thing_id":"nope"}',
                },
              ],
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
    expect(result.steps.flatMap((step) => step.toolResults).map((part) => part.output)).toEqual([
      { id: "42", name: "Thing 42" },
    ]);
    expect(sentBack).toEqual([
      {
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
      },
    ]);
    expect(result.text).toBe("done");
  });
});
