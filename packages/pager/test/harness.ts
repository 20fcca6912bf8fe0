import type { Client } from "@modelcontextprotocol/client";
import { envHost } from "@toolkits/core";
import { connectTools, type ToolClient } from "@toolkits/core/testing";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, beforeEach, expect } from "vitest";
import { forgetUserDirectories, pagerToolkit } from "../src/index.js";
import { type PagerAccount, SANDBOX_TOKEN, type SandboxOptions, sandbox } from "../src/sandbox/index.js";
import { contractViolations, type SentRequest } from "./contract.js";

/** The environment of a correctly configured server. */
export const SANDBOX_ENV = { PAGER_ACCESS_TOKEN: SANDBOX_TOKEN };

export interface ToolResult {
  isError: boolean;
  text: string;
  data: Record<string, unknown>;
}

/**
 * Serves a fresh sandbox account for every test through msw and talks to the tools the way a
 * model does: over MCP. Every upstream request is recorded, and when the file's tests are done
 * each is checked against PagerDuty's OpenAPI description (the contract).
 */
export function useSandbox(options: SandboxOptions = {}) {
  const server = setupServer();
  const all: SentRequest[] = [];
  const sent: SentRequest[] = [];
  const clients: ToolClient[] = [];
  let account: PagerAccount;
  server.events.on("request:start", ({ request }) => {
    const record = { method: request.method, url: request.url, headers: Object.fromEntries(request.headers) };
    sent.push(record);
    all.push(record);
  });
  beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
  beforeEach(() => {
    const box = sandbox(options);
    account = box.account;
    server.resetHandlers(...box.handlers);
    sent.length = 0;
    forgetUserDirectories();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });
  afterAll(() => {
    server.close();
    expect(all.flatMap(contractViolations)).toEqual([]);
  });

  /** A client connected in memory to the 14 tools; it lists them first, so results are checked against their output schemas. */
  async function open(env: Record<string, string> = SANDBOX_ENV): Promise<ToolClient> {
    const tools = await connectTools(pagerToolkit.tools, envHost(env));
    clients.push(tools);
    return tools;
  }

  async function connect(env?: Record<string, string>): Promise<Client> {
    return (await open(env)).client;
  }

  /** Calls a tool over MCP; `env` replaces the server's environment. */
  async function call(name: string, args: Record<string, unknown> = {}, env?: Record<string, string>) {
    const { isError, text, data } = await (await open(env)).call(name, args);
    return { isError, text, data: data ?? {} } satisfies ToolResult;
  }

  /** The query parameters of the requests sent to `path` during this test. */
  function queries(path: string): URLSearchParams[] {
    return sent
      .map((r) => new URL(r.url))
      .filter((u) => u.pathname === path)
      .map((u) => u.searchParams);
  }

  return {
    server,
    sent,
    all,
    call,
    connect,
    queries,
    get account(): PagerAccount {
      return account;
    },
  };
}

/** Calls a list tool page after page, following next_offset until `more` is false. */
export async function readAllPages(
  call: (name: string, args: Record<string, unknown>) => Promise<ToolResult>,
  tool: string,
  key: string,
  args: Record<string, unknown> = {},
): Promise<{ items: Record<string, unknown>[]; pages: ToolResult[] }> {
  const pages: ToolResult[] = [];
  let offset: number | undefined;
  do {
    const page = await call(tool, offset === undefined ? args : { ...args, offset });
    expect(page.isError, page.text).toBe(false);
    pages.push(page);
    offset = page.data.more ? (page.data.next_offset as number) : undefined;
  } while (offset !== undefined);
  return { items: pages.flatMap((page) => page.data[key] as Record<string, unknown>[]), pages };
}
