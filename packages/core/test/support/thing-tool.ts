import { HttpResponse, http } from "msw";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, expect } from "vitest";
import { z } from "zod";
import { createHttpClient, defineTool, envHost, READ_ONLY_HINTS } from "../../src/index.js";

// The small tool the adapter tests hand to each SDK: Test.GetThing, reading one thing from a fake
// upstream, with the calls a mock model makes to it and the tool message it must get back. Nothing
// here imports `ai`, so a test that mocks `ai` (to run on AI SDK 5) still gets its mock wherever the
// adapter imports it.

/** The token `host` gives Test.GetThing and the only one `thingServer` accepts. */
const TOKEN = "token-123456";

/**
 * The fake upstream, `GET https://upstream.test/things/:id`: the thing (`{ id, name: "Thing <id>" }`)
 * for the right bearer token, a 401 for any other, and a 404 whose message names Test.GetThing for
 * the id `nope`. Start it for a test file with `useThingServer()`.
 */
export const thingServer = setupServer(
  http.get("https://upstream.test/things/:id", ({ params, request }) => {
    if (request.headers.get("authorization") !== `Bearer ${TOKEN}`)
      return HttpResponse.json({ error: { message: "Bad token" } }, { status: 401 });
    if (params.id === "nope")
      return HttpResponse.json(
        { error: { message: "No such thing; Test.GetThing takes ids like 42" } },
        { status: 404 },
      );
    return HttpResponse.json({ id: params.id, name: `Thing ${params.id}` });
  }),
);

/**
 * Runs `thingServer` for the calling test file: listening before its tests (any request it does not
 * handle fails the test) and closed after them. Call it at the top level of the file.
 */
export function useThingServer(): void {
  beforeAll(() => thingServer.listen({ onUnhandledRequest: "error" }));
  afterAll(() => thingServer.close());
}

/**
 * Test.GetThing: a read-only tool that gets one thing by `thing_id` from `thingServer` with the
 * OAuth token of provider `test`, and returns `{ id, name }`.
 */
export const getThing = defineTool({
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

/** A host whose `test` credential (TEST_ACCESS_TOKEN) is the token `thingServer` accepts. */
export const host = envHost({ TEST_ACCESS_TOKEN: TOKEN });

/**
 * A model's first step for Test.GetThing, as the tool-call parts of either SDK's mock model: one call
 * that succeeds and one that `thingServer` answers 404 (function name Test_GetThing).
 */
export const TOOL_CALLS = [
  { type: "tool-call", toolCallId: "c1", toolName: "Test_GetThing", input: '{"thing_id":"42"}' },
  { type: "tool-call", toolCallId: "c2", toolName: "Test_GetThing", input: '{"thing_id":"nope"}' },
] as const;

/** The tool message the model must receive back for `TOOL_CALLS`, in either SDK's prompt format. */
export const TOOL_MESSAGE = {
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

/** The parts of a generateText result that AI SDK 5 and 6 share and `expectThingRun` checks. */
export interface ThingRun {
  /** The steps of the run, each with the results of the tool calls made in it. */
  steps: readonly { toolResults: readonly { output: unknown }[] }[];
  /** The model's final text. */
  text: string;
}

/**
 * Asserts how a generateText run of Test.GetThing ends when the model first makes `TOOL_CALLS` and
 * then answers "done": the one call that succeeded has its thing as its result, the model is sent
 * `TOOL_MESSAGE` back (`sentBack`: the tool messages of the prompt it last received), and the run's
 * text is the model's "done".
 */
export function expectThingRun(result: ThingRun, sentBack: readonly unknown[]): void {
  expect(result.steps.flatMap((step) => step.toolResults).map((part) => part.output)).toEqual([
    { id: "42", name: "Thing 42" },
  ]);
  expect(sentBack).toEqual([TOOL_MESSAGE]);
  expect(result.text).toBe("done");
}
