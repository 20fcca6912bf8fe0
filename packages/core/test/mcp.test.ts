import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, envHost, READ_ONLY_HINTS, ToolError } from "../src/index.js";
import { createToolRegistry, registerTools } from "../src/mcp/index.js";

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
  auth: { secrets: ["MARKETING_API_KEY"] },
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
  description: "Always fails quoting its key.",
  input: z.object({}),
  output: z.object({}),
  hints: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
  auth: { secrets: ["MARKETING_API_KEY"] },
  async handler(_input, context) {
    const key = await context.secret("MARKETING_API_KEY");
    throw new ToolError("forbidden", `key ${key.reveal()} lacks access to things`);
  },
});

let client: Client;

async function connect(env: NodeJS.ProcessEnv = { MARKETING_API_KEY: KEY }): Promise<Client> {
  const server = new McpServer({ name: "test", version: "0.0.0" });
  registerTools(server, createToolRegistry([listThings, failing], envHost(env)));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  client = new Client({ name: "test-client", version: "0.0.0" });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return client;
}

afterEach(async () => client?.close());

const text = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

describe("MCP adapter", () => {
  it("lists titles, all four annotations and JSON Schemas", async () => {
    const { tools } = await (await connect()).listTools();
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
    const result = await (await connect()).callTool({
      name: "Test.ListThings",
      arguments: { limit: 2, status: "closed" },
    });
    const expected = {
      things: [
        { id: "T0", status: "closed" },
        { id: "T1", status: "closed" },
      ],
      more: false,
    };
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual(expected);
    expect(JSON.parse(text(result))).toEqual(expected);
  });

  it("forwards progress to a caller that asked for it", async () => {
    const updates: unknown[] = [];
    await (await connect()).callTool({ name: "Test.ListThings", arguments: { limit: 1 } }, undefined, {
      onprogress: (update) => updates.push(update),
    });
    expect(updates).toEqual([{ progress: 1, total: 1, message: "listed" }]);
  });

  it("refuses invalid arguments with isError naming the parameter and the allowed values", async () => {
    const c = await connect();
    const tooBig = await c.callTool({ name: "Test.ListThings", arguments: { limit: 51 } });
    expect(tooBig.isError).toBe(true);
    expect(text(tooBig)).toMatch(/^invalid_input: Invalid arguments for Test\.ListThings: limit: .*50/);
    const badEnum = await c.callTool({ name: "Test.ListThings", arguments: { status: "pending" } });
    expect(text(badEnum)).toContain('status: Invalid option: expected one of "open"|"closed"');
    const unknown = await c.callTool({ name: "Test.ListThings", arguments: { state: "open" } });
    expect(text(unknown)).toBe(
      "invalid_input: Test.ListThings has no parameter state. Allowed: status, limit.",
    );
  });

  it("reports an unknown tool as isError", async () => {
    const result = await (await connect()).callTool({ name: "Test.Nope", arguments: {} });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("Tool Test.Nope does not exist");
  });

  it("never shows a secret in a thrown error", async () => {
    const result = await (await connect()).callTool({ name: "Test.Fail", arguments: {} });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe("forbidden: key [redacted] lacks access to things");
    expect(JSON.stringify(result)).not.toContain(KEY);
  });

  it("answers unauthenticated with how to configure when the secret is missing", async () => {
    const result = await (await connect({})).callTool({ name: "Test.ListThings", arguments: {} });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("unauthenticated: The secret MARKETING_API_KEY is not configured.");
  });
});
