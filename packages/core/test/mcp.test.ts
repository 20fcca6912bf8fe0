import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, envHost, READ_ONLY_HINTS, ToolError } from "../src/index.js";
import { type ConnectOptions, connectTools, type ProtocolEra, type ToolClient } from "../src/testing/mcp.js";

const KEY = "mkt_key_9f8e7d6c5b4a";

const listThings = defineTool({
  name: "Test.ListThings",
  title: "List things",
  description: "Lists things, newest first.",
  input: z.object({
    status: z.enum(["open", "closed"]).optional().describe("Only things in this status"),
    limit: z.number().int().min(1).max(50).default(10),
  }),
  output: z.object({ things: z.array(z.object({ id: z.string(), status: z.string() })), more: z.boolean() }),
  hints: READ_ONLY_HINTS,
  auth: { secret: "MARKETING_API_KEY" },
  async handler({ status, limit }, context) {
    context.progress({ progress: 1, total: 1, message: "listed" });
    const things = Array.from({ length: limit }, (_, i) => ({
      id: `T${i}`,
      status: status ?? "open",
      gone: null,
    }));
    return { things, more: false };
  },
});

const failing = defineTool({
  name: "Test.Fail",
  title: "Fail",
  description: "Always fails quoting its key. Test.ListThings lists what exists.",
  input: z.object({}),
  output: z.object({}),
  hints: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
  auth: { secret: "MARKETING_API_KEY" },
  async handler(_input, context) {
    const key = (await context.credential()).value;
    throw new ToolError("forbidden", `key ${key.reveal()} lacks access to things; see Test.ListThings`);
  },
});

let connected: ToolClient | undefined;

async function connect(
  options: ConnectOptions = {},
  env: NodeJS.ProcessEnv = { MARKETING_API_KEY: KEY },
): Promise<ToolClient> {
  connected = await connectTools([listThings, failing], envHost(env), options);
  return connected;
}

afterEach(async () => {
  await connected?.close();
  connected = undefined;
});

describe.each<ProtocolEra>(["modern", "legacy"])("MCP adapter, %s protocol", (era) => {
  it("lists titles, all four annotations and JSON Schemas", async () => {
    const { tools } = await (await connect({ era })).client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["Test.ListThings", "Test.Fail"]);
    const [list, fail] = tools;
    expect(list?.title).toBe("List things");
    expect(list?.annotations).toEqual({
      title: "List things",
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    });
    expect(fail?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
    });
    expect(list?.inputSchema).toMatchObject({
      type: "object",
      properties: {
        status: { type: "string", enum: ["open", "closed"], description: "Only things in this status" },
        limit: { type: "integer", minimum: 1, maximum: 50, default: 10 },
      },
    });
    expect(list?.outputSchema).toMatchObject({ type: "object", required: ["things", "more"] });
  });

  it("returns structuredContent with null fields dropped, and the same JSON as text", async () => {
    const result = await (await connect({ era })).call("Test.ListThings", { limit: 2, status: "closed" });
    const expected = {
      things: [
        { id: "T0", status: "closed" },
        { id: "T1", status: "closed" },
      ],
      more: false,
    };
    expect(result.isError).toBe(false);
    expect(result.data).toEqual(expected);
    expect(JSON.parse(result.text)).toEqual(expected);
  });

  it("forwards progress to a caller that asked for it", async () => {
    const updates: unknown[] = [];
    await (await connect({ era })).call(
      "Test.ListThings",
      { limit: 1 },
      {
        onprogress: (update) => updates.push(update),
      },
    );
    expect(updates).toEqual([{ progress: 1, total: 1, message: "listed" }]);
  });

  it("refuses invalid arguments with isError naming the parameter and the allowed values", async () => {
    const c = await connect({ era });
    const tooBig = await c.call("Test.ListThings", { limit: 51 });
    expect(tooBig.isError).toBe(true);
    expect(tooBig.text).toMatch(/^invalid_input: Invalid arguments for Test\.ListThings: limit: .*50/);
    const badEnum = await c.call("Test.ListThings", { status: "pending" });
    expect(badEnum.text).toContain('status: Invalid option: expected one of "open"|"closed"');
    const unknown = await c.call("Test.ListThings", { state: "open" });
    expect(unknown.text).toBe(
      "invalid_input: Test.ListThings has no parameter state. Allowed: status, limit.",
    );
  });

  it("reports an unknown tool as isError", async () => {
    const result = await (await connect({ era })).call("Test.Nope");
    expect(result.isError).toBe(true);
    expect(result.text).toContain("Tool Test.Nope does not exist");
  });

  it("never shows a secret in a thrown error", async () => {
    const result = await (await connect({ era })).call("Test.Fail");
    expect(result.isError).toBe(true);
    expect(result.text).toBe("forbidden: key [redacted] lacks access to things; see Test.ListThings");
    expect(JSON.stringify(result)).not.toContain(KEY);
  });

  it("answers unauthenticated with how to configure when the secret is missing", async () => {
    const result = await (await connect({ era }, {})).call("Test.ListThings");
    expect(result.isError).toBe(true);
    expect(result.text).toContain("unauthenticated: The secret MARKETING_API_KEY is not configured.");
  });
});

describe("served names", () => {
  it("serves underscore names that every client accepts, and names tools that way in every text", async () => {
    const c = await connect({ names: "underscore" });
    const { tools } = await c.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["Test_ListThings", "Test_Fail"]);
    for (const tool of tools) expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(tools[1]?.description).toBe("Always fails quoting its key. Test_ListThings lists what exists.");
    const failed = await c.call("Test_Fail");
    expect(failed.text).toBe("forbidden: key [redacted] lacks access to things; see Test_ListThings");
    const invalid = await c.call("Test_ListThings", { limit: 0 });
    expect(invalid.text).toMatch(/^invalid_input: Invalid arguments for Test_ListThings: limit/);
  });

  it("runs a call by either form of the name", async () => {
    for (const names of ["underscore", "dotted"] as const) {
      const c = await connect({ names });
      expect((await c.call("Test_ListThings", { limit: 1 })).isError).toBe(false);
      expect((await c.call("Test.ListThings", { limit: 1 })).isError).toBe(false);
      await c.close();
    }
  });
});

describe("search catalogue", () => {
  it("lists search_tools and call_tool only, with call_tool as cautious as the most cautious tool", async () => {
    const { tools } = await (await connect({ catalog: "search", names: "underscore" })).client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["search_tools", "call_tool"]);
    expect(tools[1]?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
    });
    expect(tools[0]?.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
  });

  it("finds tools by what they do, with served names and full input schemas", async () => {
    const c = await connect({ catalog: "search", names: "underscore" });
    const found = await c.call("search_tools", { query: "list things", limit: 1 });
    expect(found.isError).toBe(false);
    const [first] = (found.data as { tools: Record<string, unknown>[] }).tools;
    expect(first).toMatchObject({
      name: "Test_ListThings",
      title: "List things",
      annotations: { readOnlyHint: true },
      inputSchema: { properties: { limit: { maximum: 50 } } },
    });
  });

  it("runs a tool through call_tool exactly as a direct call, errors included", async () => {
    const direct = await connect({ names: "underscore" });
    const expected = [
      await direct.call("Test_ListThings", { limit: 2 }),
      await direct.call("Test_ListThings", { limit: 99 }),
      await direct.call("Test_Fail"),
    ];
    await direct.close();
    const c = await connect({ catalog: "search", names: "underscore" });
    const seen = [
      await c.call("call_tool", { name: "Test_ListThings", arguments: { limit: 2 } }),
      await c.call("call_tool", { name: "Test.ListThings", arguments: { limit: 99 } }),
      await c.call("call_tool", { name: "Test_Fail" }),
    ];
    expect(seen).toEqual(expected);
    const missing = await c.call("call_tool", { arguments: {} });
    expect(missing.text).toMatch(/^invalid_input: Invalid arguments for call_tool: name/);
    const unknown = await c.call("call_tool", { name: "Test_Nope" });
    expect(unknown.text).toBe(
      "invalid_input: Tool Test_Nope does not exist on this server. Call search_tools to find one.",
    );
  });
});
