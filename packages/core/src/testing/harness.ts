import type { RequestHandler } from "msw";
import { type SetupServer, setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, beforeEach, expect } from "vitest";
import { envHost, type Host } from "../context.js";
import { accessTokenVariable } from "../secrets.js";
import type { Sandbox, Toolkit } from "../tool.js";
import type { RecordedRequest, RequestContract } from "./contract.js";
import { watchSandboxCredentials } from "./leaks.js";
import { connectTools, type SeenResult, type ToolClient } from "./mcp.js";

/** A server's environment: variable name to value. */
export type Env = Readonly<Record<string, string>>;

/** Options of `useToolkitSandbox`. */
export interface SandboxHarnessOptions<S extends Sandbox> {
  /** Builds the sandbox, afresh for every test (default the toolkit's own `sandbox()`). */
  sandbox?: () => S | Promise<S>;
  /** Host settings for every client besides its environment, e.g. `{ maxResultBytes }`. */
  host?: Partial<Host>;
  /** Checks every request the file's tests sent, after the last one; a problem fails the file. */
  contract?: RequestContract;
  /** Runs before each test once the sandbox is fresh: clears the toolkit's own caches, say. */
  beforeEach?: () => void;
}

/** One test file's view of a toolkit on its sandbox. */
export interface ToolkitSandbox<S extends Sandbox = Sandbox> {
  /** The msw server standing in for the upstream; `server.use(…)` overrides the sandbox until the test ends. */
  readonly server: SetupServer;
  /** This test's sandbox (its handlers, credentials, settings, account). */
  readonly sandbox: S;
  /** The environment clients get by default: `sandboxEnv` of this test's sandbox. */
  readonly env: Env;
  /** Upstream requests sent during this test, oldest first (each body is read by the time a call returns). */
  readonly requests: readonly RecordedRequest[];
  /** The query strings of this test's requests, optionally only those to `pathname`. */
  queries(pathname?: string): URLSearchParams[];
  /** Serves `next` (default a fresh sandbox) from now on and forgets this test's requests so far. */
  reset(next?: S): Promise<void>;
  /**
   * An MCP client on the toolkit's tools with `env` (default `env`) and `host` overrides, closed after
   * the test. It has listed the tools, so every structured result is checked against its output schema.
   */
  connect(env?: Env, host?: Partial<Host>): Promise<ToolClient>;
  /** Calls a tool over MCP with `env` as the server's environment (default `env`); one client per environment and test. */
  call(name: string, args?: Record<string, unknown>, env?: Env): Promise<SeenResult>;
}

/**
 * The environment of a server configured for `sandbox`: its secrets by name, its tokens as each
 * provider's access-token variable (`PAGER_ACCESS_TOKEN`), and its settings.
 */
export function sandboxEnv(sandbox: Sandbox): Record<string, string> {
  const tokens = Object.entries(sandbox.tokens ?? {}).map(([provider, token]) => [
    accessTokenVariable(provider),
    token,
  ]);
  return { ...sandbox.settings, ...sandbox.secrets, ...Object.fromEntries(tokens) };
}

/**
 * Serves `toolkit`'s sandbox through msw for one test file (call it at the top of the file or of a
 * `describe`): a fresh sandbox before each test, whose credentials join the leak scan; every
 * upstream request recorded (method, URL, headers, body); unhandled requests fail. Clients connect
 * through a real MCP client (`connectTools`) and are closed after each test. With a `contract`,
 * every request the file sent is checked against it after its last test.
 */
export function useToolkitSandbox<S extends Sandbox = Sandbox>(
  toolkit: Toolkit,
  options: SandboxHarnessOptions<S> = {},
): ToolkitSandbox<S> {
  const makeSandbox = options.sandbox ?? (() => toolkit.sandbox() as Promise<S>);
  const server = setupServer();
  const recorder = recordRequests(server);
  const clients = new Map<string, Promise<ToolClient>>();
  const opened: Promise<ToolClient>[] = [];
  let current: S | undefined;

  const serve = (sandbox: S) => {
    current = sandbox;
    server.resetHandlers(...(sandbox.handlers as RequestHandler[]));
    watchSandboxCredentials(sandbox);
    recorder.forgetTest();
  };
  const env = () => sandboxEnv(harness.sandbox);
  const connect = (clientEnv: Env = env(), host: Partial<Host> = {}) => {
    const served = envHost(clientEnv, { ...options.host, ...host });
    const client = connectTools(toolkit.tools, served).then((connected) => recorder.settling(connected));
    opened.push(client);
    return client;
  };

  beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
  beforeEach(async () => {
    serve(await makeSandbox());
    options.beforeEach?.();
  });
  afterEach(async () => {
    clients.clear();
    await Promise.all(opened.splice(0).map(async (client) => (await client).close()));
  });
  afterAll(async () => {
    server.close();
    const sent = await recorder.file();
    if (options.contract)
      expect(sent.flatMap((request) => options.contract?.problems(request) ?? [])).toEqual([]);
  });

  const harness: ToolkitSandbox<S> = {
    server,
    get sandbox(): S {
      if (!current)
        throw new Error("The sandbox is served from the first test on, not while tests are collected.");
      return current;
    },
    get env() {
      return env();
    },
    get requests() {
      return recorder.test;
    },
    queries: (pathname) =>
      recorder.test
        .map((request) => new URL(request.url))
        .filter((url) => pathname === undefined || url.pathname === pathname)
        .map((url) => url.searchParams),
    reset: async (next) => serve(next ?? (await makeSandbox())),
    connect,
    async call(name, args = {}, clientEnv = env()) {
      const key = JSON.stringify(clientEnv);
      let client = clients.get(key);
      if (!client) {
        client = connect(clientEnv);
        clients.set(key, client);
      }
      return (await client).call(name, args);
    },
  };
  return harness;
}

/**
 * Records every request the server sees, as it starts. msw does not wait for its listeners, so
 * bodies are read in the background; `settling` makes a client's calls wait for them.
 */
function recordRequests(server: SetupServer) {
  const test: RecordedRequest[] = [];
  const file: RecordedRequest[] = [];
  const reading = new Set<Promise<void>>();
  const bodiesRead = () => Promise.all([...reading]);

  server.events.on("request:start", ({ request }) => {
    const record = {
      method: request.method,
      url: request.url,
      headers: Object.fromEntries(request.headers),
      body: "",
    };
    test.push(record);
    file.push(record);
    if (!request.body) return;
    const read = request
      .clone()
      .text()
      .then((body: string) => {
        record.body = body;
      })
      .finally(() => reading.delete(read));
    reading.add(read);
  });

  return {
    test: test as readonly RecordedRequest[],
    forgetTest: () => {
      test.length = 0;
    },
    /** Every request of the file, bodies read. */
    file: async () => {
      await bodiesRead();
      return file;
    },
    /** `client`, whose calls return once the bodies of the requests they sent have been read. */
    settling(client: ToolClient): ToolClient {
      return {
        ...client,
        async call(...args) {
          try {
            return await client.call(...args);
          } finally {
            await bodiesRead();
          }
        },
      };
    },
  };
}
