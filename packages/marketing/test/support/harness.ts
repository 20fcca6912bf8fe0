import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type AnyToolDefinition, envHost } from "@toolkits/core";
import { createToolRegistry, registerTools } from "@toolkits/core/mcp";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { marketingTools } from "../../src/index.js";
import { SANDBOX_API_KEY, sandbox } from "../../src/testing/index.js";

/** One upstream request as the sandbox saw it, with its body text. */
export interface Seen {
  method: string;
  url: URL;
  headers: Headers;
  /** The body text; read lazily because msw does not wait for event listeners. */
  body: Promise<string>;
}

/**
 * An msw server serving a fresh sandbox for every test, recording each upstream request.
 * Call at the top of a test file.
 */
export function useSandbox() {
  const server = setupServer();
  const seen: Seen[] = [];
  server.events.on("request:start", ({ request }) => {
    const copy = request.clone();
    seen.push({ method: copy.method, url: new URL(copy.url), headers: copy.headers, body: copy.text() });
  });
  beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
  beforeEach(() => server.resetHandlers(...(sandbox().handlers as Parameters<typeof server.use>)));
  afterEach(() => {
    seen.length = 0;
  });
  afterAll(() => server.close());
  return {
    server,
    seen,
    /** Starts over with an empty sandbox account and no recorded requests. */
    reset() {
      server.resetHandlers(...(sandbox().handlers as Parameters<typeof server.use>));
      seen.length = 0;
    },
  };
}

let open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.map((client) => client.close()));
  open = [];
});

/** An MCP client connected through the core adapter to a server with the marketing tools. */
export async function connect(
  env: NodeJS.ProcessEnv = { MARKETING_API_KEY: SANDBOX_API_KEY },
  tools: readonly AnyToolDefinition[] = marketingTools,
): Promise<Client> {
  const server = new McpServer({ name: "marketing-test", version: "0.0.0" });
  registerTools(server, createToolRegistry(tools, envHost(env)));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "marketing-test-client", version: "0.0.0" });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  // Like real clients: the listing makes the client check results against the output schemas.
  await client.listTools();
  open.push(client);
  return client;
}

/** Calls a tool by its short name (`GetAllSegments`). */
export async function call(
  client: Client,
  tool: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult> {
  return (await client.callTool({ name: `MarketingApi.${tool}`, arguments: args })) as CallToolResult;
}

/** The text of a result's first content block (an error's message). */
export const text = (result: CallToolResult): string => (result.content[0] as { text: string }).text;

/** structuredContent of a successful call; fails the test with the error text otherwise. */
export function ok(result: CallToolResult): Record<string, unknown> {
  if (result.isError) throw new Error(`tool failed: ${text(result)}`);
  return result.structuredContent as Record<string, unknown>;
}
