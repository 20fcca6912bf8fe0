import { HttpResponse, http } from "msw";
import { setupServer } from "msw/node";
import type {
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import type {
  FunctionTool,
  ResponseInputItem,
  ResponseOutputItem,
} from "openai/resources/responses/responses";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { toFunctionTools, toResponsesTools } from "../src/adapters/openai.js";
import { createHttpClient, defineTool, envHost, READ_ONLY_HINTS } from "../src/index.js";

/** The query strings the fake upstream received, to see which parameters reached it. */
const received: URLSearchParams[] = [];
const server = setupServer(
  http.get("https://upstream.test/things", ({ request }) => {
    const query = new URL(request.url).searchParams;
    received.push(query);
    if (request.headers.get("x-api-key") !== "key-123456")
      return HttpResponse.json({ error: { message: "Bad key" } }, { status: 401 });
    const things = [{ id: "t1", name: `${query.get("q")} one`, status: query.get("status") ?? "open" }];
    return HttpResponse.json({ things });
  }),
);
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(() => {
  received.length = 0;
});
afterAll(() => server.close());

/** A tool shaped like the toolkits' list tools: enum, bounded integer with a default, optional text and list. */
const listThings = defineTool({
  name: "Test.ListThings",
  title: "List things",
  description: "Lists things by name, newest first; Test.ListThings again with `after` for the next page.",
  input: z.object({
    query: z.string().min(1).describe("Words the name must contain"),
    status: z.enum(["open", "closed"]).optional().describe("Only things in this state"),
    limit: z.number().int().min(1).max(50).default(10).describe("Page size"),
    after: z.string().min(1).optional().describe("The last id of the previous page"),
    tags: z.array(z.string().min(1)).optional().describe("Only things with all these tags"),
    since: z
      .union([z.string(), z.number().int().min(0)])
      .optional()
      .describe("ISO-8601 date or Unix seconds"),
  }),
  output: z.object({
    things: z.array(z.object({ id: z.string(), name: z.string(), status: z.string() })),
    next: z.string(),
  }),
  hints: READ_ONLY_HINTS,
  auth: { secret: "TEST_API_KEY" },
  async handler({ query, status, limit, after, tags }, context) {
    const { value: key } = await context.credential();
    const client = createHttpClient({
      baseUrl: "https://upstream.test",
      headers: { "x-api-key": key.reveal() },
      fetch: context.fetch,
    });
    const { data } = await client.request<{ things: { id: string; name: string; status: string }[] }>({
      method: "GET",
      path: "/things",
      query: { q: query, status, limit, after, tag: tags },
      signal: context.signal,
    });
    const things = data?.things ?? [];
    return { things, next: `Test.ListThings with after=${things.at(-1)?.id}` };
  },
});

const host = envHost({ TEST_API_KEY: "key-123456" });

/** The strict-mode rules OpenAI documents, as problems found in `schema` (none when it complies). */
function strictProblems(schema: unknown, path = "parameters"): string[] {
  if (typeof schema !== "object" || schema === null) return [`${path} is not a schema`];
  const node = schema as Record<string, unknown>;
  const problems = "default" in node ? [`${path} has a default`] : [];
  const children = [
    ...Object.entries((node.properties ?? {}) as Record<string, unknown>).map(([name, child]) => [
      `${path}.${name}`,
      child,
    ]),
    ...((node.anyOf ?? []) as unknown[]).map((child, index) => [`${path}.anyOf[${index}]`, child]),
    ...(node.items === undefined ? [] : [[`${path}.items`, node.items]]),
  ] as [string, unknown][];
  if (node.type === "object") {
    if (node.additionalProperties !== false) problems.push(`${path} is not closed`);
    const names = Object.keys((node.properties ?? {}) as object);
    if (JSON.stringify(node.required) !== JSON.stringify(names))
      problems.push(`${path} does not require every property`);
  }
  return [...problems, ...children.flatMap(([childPath, child]) => strictProblems(child, childPath))];
}

describe("OpenAI function tools, as the openai package types them", () => {
  const chat = toFunctionTools([listThings], host, { strict: true });
  const responses = toResponsesTools([listThings], host, { strict: true });

  it("fit the tools parameter of Chat Completions and of the Responses API", () => {
    const chatTools: ChatCompletionTool[] = chat.tools;
    const responsesTools: FunctionTool[] = responses.tools;
    expect(chatTools.map((tool) => tool.type === "function" && tool.function.name)).toEqual([
      "Test_ListThings",
    ]);
    expect(responsesTools).toEqual([
      {
        type: "function",
        name: "Test_ListThings",
        description:
          "Lists things by name, newest first; Test_ListThings again with `after` for the next page.",
        parameters: chat.tools[0]?.function.parameters,
        strict: true,
      },
    ]);
  });

  it("answer Chat Completions tool calls with tool messages", async () => {
    const toolCalls: ChatCompletionMessageToolCall[] = [
      { id: "call_1", type: "function", function: { name: "Test_ListThings", arguments: '{"query":"pen"}' } },
      { id: "call_2", type: "custom", custom: { name: "someone_elses", input: "x" } },
      { id: "call_3", type: "function", function: { name: "Test_Nope", arguments: "{}" } },
    ];
    const messages: ChatCompletionMessageParam[] = await chat.runCalls(toolCalls);
    expect(messages).toEqual([
      { role: "tool", tool_call_id: "call_1", content: expect.stringContaining('"name":"pen one"') },
      {
        role: "tool",
        tool_call_id: "call_3",
        content: expect.stringContaining("No function named Test_Nope."),
      },
    ]);
    expect(await chat.runCalls(undefined)).toEqual([]);
  });

  it("answer Responses API function_call items with function_call_output items", async () => {
    const output: ResponseOutputItem[] = [
      { type: "reasoning", id: "rs_1", summary: [] },
      { type: "function_call", call_id: "call_1", name: "Test_ListThings", arguments: '{"query":"pen"}' },
      {
        type: "message",
        id: "msg_1",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: "Looking.", annotations: [] }],
      },
    ];
    const input: ResponseInputItem[] = await responses.runCalls(output);
    expect(input).toEqual([
      {
        type: "function_call_output",
        call_id: "call_1",
        output: expect.stringContaining('"name":"pen one"'),
      },
    ]);
  });
});

describe("OpenAI function tools without strict mode", () => {
  it("list the tool's own JSON Schema; Chat Completions leaves strict out, Responses says false", () => {
    const [chatTool] = toFunctionTools([listThings], host).tools;
    const [responsesTool] = toResponsesTools([listThings], host).tools;
    expect(chatTool?.function).not.toHaveProperty("strict");
    expect(chatTool?.function.parameters).toMatchObject({
      required: ["query"],
      properties: { limit: { default: 10 } },
    });
    expect(responsesTool).toMatchObject({ strict: false, parameters: chatTool?.function.parameters });
  });

  it("answer bad calls with error JSON instead of throwing", async () => {
    const set = toFunctionTools([listThings], host);
    const error = async (name: string, args: string) => JSON.parse(await set.call(name, args)).error;
    expect(await error("Test_ListThings", "{")).toMatchObject({
      kind: "invalid_input",
      message: "The arguments of Test_ListThings are not valid JSON.",
    });
    expect((await error("Test_ListThings", '{"limit":3}')).message).toContain(
      "Invalid arguments for Test_ListThings: query",
    );
    expect((await error("Nope", "{}")).message).toBe("No function named Nope.");
    expect(received).toEqual([]);
  });
});

describe("OpenAI strict mode", () => {
  const chat = toFunctionTools([listThings], host, { strict: true });
  const responses = toResponsesTools([listThings], host, { strict: true });

  it("rewrites a list tool's parameters to OpenAI's strict rules", () => {
    const parameters = chat.tools[0]?.function.parameters;
    expect(strictProblems(toFunctionTools([listThings], host).tools[0]?.function.parameters)).toContain(
      "parameters.limit has a default",
    );
    expect(strictProblems(parameters)).toEqual([]);
    expect(parameters).toEqual({
      type: "object",
      properties: {
        query: { type: "string", description: "Words the name must contain" },
        status: {
          description: "Only things in this state",
          anyOf: [{ type: "string", enum: ["open", "closed"] }, { type: "null" }],
        },
        limit: { type: ["integer", "null"], minimum: 1, maximum: 50, description: "Page size (default 10)" },
        after: { type: ["string", "null"], description: "The last id of the previous page" },
        tags: {
          type: ["array", "null"],
          items: { type: "string" },
          description: "Only things with all these tags",
        },
        since: {
          description: "ISO-8601 date or Unix seconds",
          anyOf: [{ type: "string" }, { type: "integer", minimum: 0 }, { type: "null" }],
        },
      },
      required: ["query", "status", "limit", "after", "tags", "since"],
      additionalProperties: false,
    });
  });

  it("takes the nulls the model sends for optional parameters as not given", async () => {
    const nulls = { status: null, limit: null, after: null, tags: null, since: null };
    const output: ResponseOutputItem[] = [
      {
        type: "function_call",
        call_id: "call_9",
        name: "Test_ListThings",
        arguments: JSON.stringify({ query: "pen", ...nulls }),
      },
    ];
    const [answer] = await responses.runCalls(output);
    expect(answer?.call_id).toBe("call_9");
    expect(JSON.parse(answer?.output ?? "")).toEqual({
      things: [{ id: "t1", name: "pen one", status: "open" }],
      next: "Test_ListThings with after=t1",
    });
    // The default applied, and nothing else reached the upstream.
    expect(received.map((query) => Object.fromEntries(query))).toEqual([{ q: "pen", limit: "10" }]);
  });

  it("leaves a null for a required parameter to the tool to refuse", async () => {
    const answer = JSON.parse(await chat.call("Test_ListThings", '{"query":null,"limit":null}'));
    expect(answer.error.kind).toBe("invalid_input");
    expect(answer.error.message).toContain("query");
    expect(received).toEqual([]);
  });

  it("closes nested objects, and drops nested nulls on the way back", async () => {
    const createThing = defineTool({
      name: "Test.CreateThing",
      title: "Create thing",
      description: "Creates a thing and says which fields it was given.",
      input: z.object({
        name: z.string(),
        owner: z.object({ email: z.string(), team: z.string().optional() }),
        notes: z.array(z.object({ text: z.string(), pinned: z.boolean().default(false) })).optional(),
      }),
      output: z.object({ owner_fields: z.array(z.string()), pinned: z.array(z.boolean()) }),
      hints: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
      auth: {},
      handler: async ({ owner, notes }) => ({
        owner_fields: Object.keys(owner),
        pinned: (notes ?? []).map((note) => note.pinned),
      }),
    });
    const set = toFunctionTools([createThing], host, { strict: true });
    const parameters = set.tools[0]?.function.parameters;
    expect(strictProblems(parameters)).toEqual([]);
    expect(parameters).toMatchObject({
      properties: {
        owner: { required: ["email", "team"], properties: { team: { type: ["string", "null"] } } },
        notes: {
          type: ["array", "null"],
          items: { required: ["text", "pinned"], additionalProperties: false },
        },
      },
    });
    const args = {
      name: "pen",
      owner: { email: "a@b.test", team: null },
      notes: [{ text: "hi", pinned: null }],
    };
    expect(JSON.parse(await set.call("Test_CreateThing", JSON.stringify(args)))).toEqual({
      owner_fields: ["email"],
      pinned: [false],
    });
  });

  it("keeps strict off for a tool whose input strict mode cannot express", () => {
    const tagThing = {
      ...listThings,
      name: "Test.TagThing",
      input: z.object({ thing_id: z.string(), labels: z.record(z.string(), z.string()) }),
    };
    const [chatTool, strictList] = toFunctionTools([tagThing, listThings], host, { strict: true }).tools;
    expect(chatTool?.function.strict).toBe(false);
    expect(chatTool?.function.parameters).toMatchObject({
      properties: { labels: { additionalProperties: { type: "string" } } },
    });
    expect(strictList?.function.strict).toBe(true);
    expect(toResponsesTools([tagThing], host, { strict: true }).tools[0]?.strict).toBe(false);
  });
});
