import type { CallToolResult, Client } from "@modelcontextprotocol/client";
import { type AnyToolDefinition, envHost } from "@toolkits/core";
import { connectTools, type ToolClient } from "@toolkits/core/testing";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { marketingTools } from "../../src/index.js";
import { SANDBOX_API_KEY, sandbox } from "../../src/sandbox/index.js";

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

let open: ToolClient[] = [];
afterEach(async () => {
  await Promise.all(open.map((tools) => tools.close()));
  open = [];
});

/** An MCP client connected through the core adapter to a server with the marketing tools. */
export async function connect(
  env: NodeJS.ProcessEnv = { MARKETING_API_KEY: SANDBOX_API_KEY },
  tools: readonly AnyToolDefinition[] = marketingTools,
): Promise<Client> {
  // Like real clients, it lists the tools first, so results are checked against the output schemas.
  const connected = await connectTools(tools, envHost(env));
  open.push(connected);
  return connected.client;
}

/** Calls a tool by its short name (`GetAllSegments`). */
export async function call(
  client: Client,
  tool: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult> {
  return client.callTool({ name: `MarketingApi.${tool}`, arguments: args });
}

/** The text of a result's first content block (an error's message). */
export const text = (result: CallToolResult): string => (result.content[0] as { text: string }).text;

/** structuredContent of a successful call; fails the test with the error text otherwise. */
export function ok(result: CallToolResult): Record<string, unknown> {
  if (result.isError) throw new Error(`tool failed: ${text(result)}`);
  return result.structuredContent as Record<string, unknown>;
}
