import type { Client } from "@modelcontextprotocol/client";
import { envHost } from "@toolkits/core";
import { connectTools as connectCore } from "@toolkits/core/testing";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, beforeEach, expect } from "vitest";
import { sheetsTools } from "../src/index.js";
import { SANDBOX_TOKEN, sandbox } from "../src/sandbox/index.js";
import { contractProblems, type RecordedRequest } from "./contract.js";

export { SANDBOX_TOKEN };

/** The environment of a configured server: the sandbox's Google token. */
export const SIGNED_IN = { GOOGLE_ACCESS_TOKEN: SANDBOX_TOKEN };

/** What a user of a tool sees. */
export interface Outcome {
  isError: boolean;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read results by known shape
  data: any;
}

/** Calls one tool and returns what its user sees. */
export type CallTool = (name: string, args?: object) => Promise<Outcome>;

/** Serves the 9 tools from an MCP server with `env` as the host's environment, and connects a client. */
export async function connectTools(env: Record<string, string>): Promise<{ call: CallTool; client: Client }> {
  const tools = await connectCore(sheetsTools, envHost(env));
  const call: CallTool = async (name, args = {}) => {
    const { isError, text, data } = await tools.call(name, args as Record<string, unknown>);
    return { isError, text, data };
  };
  return { call, client: tools.client };
}

/**
 * Serves a fresh sandbox per test through msw (unhandled requests fail), records every upstream
 * request and, after the file's tests, checks each one against the discovery documents.
 */
export function useSandbox() {
  const server = setupServer();
  const pending: Promise<RecordedRequest>[] = [];
  server.events.on("request:start", ({ request }) => {
    const copy = request.clone();
    pending.push(copy.text().then((body) => ({ method: request.method, url: request.url, body })));
  });
  const clients: Client[] = [];
  beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
  beforeEach(() => server.resetHandlers(...(sandbox().handlers as Parameters<typeof server.resetHandlers>)));
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });
  afterAll(async () => {
    server.close();
    const requests = await Promise.all(pending);
    expect(requests.flatMap(contractProblems)).toEqual([]);
  });

  return {
    server,
    /** Requests recorded so far (bodies read), optionally only those since `from`. */
    async requests(from = 0): Promise<RecordedRequest[]> {
      return Promise.all(pending.slice(from));
    },
    get count(): number {
      return pending.length;
    },
    /** An MCP client connected to the 9 tools, with `env` as the host's environment; closed after the test. */
    async connect(env: Record<string, string> = SIGNED_IN): Promise<CallTool> {
      const { call, client } = await connectTools(env);
      clients.push(client);
      return call;
    },
  };
}
