// The server and the SDK alone, side by side in this process: two `/mcp` endpoints over the same
// registries and sandbox, one dispatching as the server does (fast path, else the SDK), the other
// handing every request to the SDK's handler; and what tells their answers apart.
import { createServer, type IncomingMessage, request } from "node:http";
import type { AddressInfo } from "node:net";
import { defineTool, READ_ONLY_HINTS, silentLogger, ToolError } from "@toolkits/core";
import { expect } from "vitest";
import { z } from "zod";
import { connectors } from "../../src/connectors/selection.js";
import { type Answering, createDispatcher, type Dispatcher } from "../../src/dispatch.js";
import { deferredSandboxHost } from "../../src/host.js";
import { connectorTarget } from "../../src/http/connectors.js";
import { type EndpointOptions, mcpEndpoint } from "../../src/http/endpoint.js";
import { iconSet } from "../../src/icons/index.js";
import { servedRegistries } from "../../src/served.js";
import { serverInfo } from "../../src/server.js";
import { TOOLKITS } from "../../src/toolkits.js";
import type { View } from "../../src/views.js";

/** What `Test_Kept` answers: one object, which the tool keeps and a test changes between calls. */
export const kept = { count: 1, items: ["first"] };
/** Called by each `Test_Wait` call once it runs. */
let waiting: () => void = () => {};
/** Resolves once the next `Test_Wait` call runs, so a test cancels it only then. */
export const nextWait = (): Promise<void> => new Promise((resolve) => (waiting = resolve));

const NOTHING = z.object({});
const TEST_TOOL = { hints: READ_ONLY_HINTS, auth: {}, input: NOTHING, output: NOTHING };
/** What no toolkit's tool does: keep its result, ask to connect, run until cancelled, report progress. */
const TEST_TOOLS = [
  defineTool({
    ...TEST_TOOL,
    name: "Test.Kept",
    title: "Kept result",
    description: "Answers the same object every time.",
    output: z.object({ count: z.number(), items: z.array(z.string()) }),
    handler: async () => kept,
  }),
  defineTool({
    ...TEST_TOOL,
    name: "Test.Connect",
    title: "Needs a connection",
    description: "Asks the caller to connect an account.",
    handler: async () => {
      const connect = { url: "https://connect.test/c/1", id: "e-1", message: "Connect your test account." };
      throw new ToolError("unauthenticated", "Connect your test account first.", { connect });
    },
  }),
  defineTool({
    ...TEST_TOOL,
    name: "Test.Wait",
    title: "Wait",
    description: "Runs until cancelled.",
    handler: (_input, context) =>
      new Promise((_resolve, reject) => {
        const cancelled = () => reject(new ToolError("cancelled", "Test.Wait was cancelled."));
        context.signal.addEventListener("abort", cancelled, { once: true });
        waiting();
      }),
  }),
  defineTool({
    ...TEST_TOOL,
    name: "Test.Steps",
    title: "Steps",
    description: "Reports two steps of progress.",
    output: z.object({ steps: z.number() }),
    handler: async (_input, context) => {
      context.progress({ progress: 1, total: 2, message: "first step" });
      context.progress({ progress: 2, total: 2, message: "second step" });
      return { steps: 2 };
    },
  }),
];

const KITS = Object.values(TOOLKITS);
const TOOLS = KITS.flatMap((kit) => kit.tools);
/** The server's public URL, which only its icons' URLs name. */
const PUBLIC_URL = "http://127.0.0.1:8080";
const registryOf = servedRegistries(
  { toolkits: KITS, tools: [...TOOLS, ...TEST_TOOLS] },
  { catalog: "full", apps: "on", toolNames: "underscore" },
  deferredSandboxHost(KITS, { logger: silentLogger, maxResultBytes: 100_000 }),
  PUBLIC_URL,
);
/** The server's identity, as 2026-07-28 results name it. */
export const INFO = serverInfo(iconSet(PUBLIC_URL));
const selections = connectors(KITS, TOOLS);
/** What the front door narrows a token to (its scopes): the read-only tools, for `Bearer read-only`. */
const READ_ONLY_TOKEN: View = { id: "test:read-only", admits: (tool) => tool.hints.readOnly };

/** The way a dispatcher answered: from the registry, or by the SDK. */
export type Way = "fast" | "sdk";

/** `dispatcher`, noting in `ways` which way it answers each request, by JSON-RPC id. */
function noting(dispatcher: Dispatcher, ways: Map<unknown, Way>): Dispatcher {
  return {
    dispatch: (inbound, scope, answering, headers) => {
      // A null id (not an id the parser keeps) is noted under null, as the case sent it.
      const id = inbound.single && (inbound.single.id ?? null);
      const noted: Answering<unknown> = {
        ...answering,
        sdk: () => {
          ways.set(id, "sdk");
          return answering.sdk();
        },
        reply: (response) => {
          ways.set(id, "fast");
          return answering.reply(response);
        },
      };
      return dispatcher.dispatch(inbound, scope, noted as typeof answering, headers);
    },
  };
}

/** The SDK alone: every request to its handler, as if there were no fast path. */
const SDK_ALONE: Dispatcher = { dispatch: (_message, _scope, answering) => answering.sdk() };

/** The server's dispatcher over these registries: the fast path, else the SDK. */
export const servedDispatcher = (): Dispatcher => createDispatcher(registryOf, INFO);

/**
 * `/mcp` and the connector URLs, answered on loopback through `dispatcher`, with the endpoint's
 * options as `overrides` change them; resolves to the port.
 */
export async function serve(
  dispatcher: Dispatcher,
  servers: { close(): void }[],
  overrides: Partial<EndpointOptions> = {},
): Promise<number> {
  const mcp = mcpEndpoint({
    registryOf,
    serverInfo: INFO,
    dispatcher,
    authenticate: async (req: IncomingMessage) => ({
      caller: { key: "" },
      view: req.headers.authorization === "Bearer read-only" ? READ_ONLY_TOKEN : undefined,
    }),
    maxBodyBytes: 1_000_000,
    // Well within the test's own time limit: a call a cancellation misses is answered 504, not hung.
    requestTimeoutMs: 10_000,
    graceOver: new AbortController().signal,
    apps: true,
    logger: silentLogger,
    ...overrides,
  });
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    mcp(req, res, () => {}, connectorTarget(selections, path)).catch((error: Error) => {
      res.writeHead(500).end(error.message);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

/** The two endpoints: the server's (`served`) and the SDK alone (`alone`). */
export interface SideBySide {
  /** Posts `sent` to one endpoint. */
  post(to: "served" | "alone", sent: Sent): Promise<Answer>;
  /** Which way the server answered the request with JSON-RPC id `id` since the last `both`. */
  way(id: unknown): Way | undefined;
  /** Sends `sent` to the server, then to the SDK alone; both answers, and the server's way. */
  both(sent: Sent): Promise<{ served: Answer; alone: Answer; way: Way | undefined }>;
  close(): void;
}

export async function sideBySide(): Promise<SideBySide> {
  const ways = new Map<unknown, Way>();
  const servers: { close(): void }[] = [];
  const ports = {
    served: await serve(noting(servedDispatcher(), ways), servers),
    alone: await serve(SDK_ALONE, servers),
  };
  const post: SideBySide["post"] = (to, sent) => send(ports[to], sent);
  return {
    post,
    way: (id) => ways.get(id),
    async both(sent) {
      ways.clear();
      const served = await post("served", sent);
      const way = ways.get((sent.body as { id?: unknown }).id);
      return { served, alone: await post("alone", sent), way };
    },
    close: () => {
      for (const server of servers) server.close();
    },
  };
}

export interface Sent {
  path?: string;
  /** Undefined leaves a header out. */
  headers: Record<string, string | undefined>;
  /** The JSON-RPC message (or batch). */
  body: unknown;
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Headers of the connection and of how the body travels on it, not of the answer: Node dates each
 * answer, and the same bytes may go with a length or in chunks.
 */
const TRANSPORT_HEADERS = new Set([
  "date",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
]);

/** Posts `sent` to `port` with exactly its headers (fetch would add `accept: *\/*`). */
export function send(port: number, sent: Sent): Promise<Answer> {
  const given = Object.entries({ "content-type": "application/json", ...sent.headers });
  const headers = Object.fromEntries(given.filter(([, value]) => value !== undefined));
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, path: sent.path ?? "/mcp", method: "POST", headers },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => {
          const answered = Object.entries(res.headers).filter(([name]) => !TRANSPORT_HEADERS.has(name));
          resolve({ status: res.statusCode ?? 0, headers: Object.fromEntries(answered) as never, body });
        });
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(sent.body));
  });
}

/**
 * The JSON-RPC messages of an answer sent as JSON or as server-sent events; `byId` sorts them (the
 * SDK answers a batch's calls as each finishes).
 */
export function messages(answer: Answer, byId = false): Record<string, unknown>[] {
  const json = !answer.headers["content-type"]?.startsWith("text/event-stream");
  const events = answer.body.split("\n").filter((line) => line.startsWith("data: "));
  const all = json
    ? [JSON.parse(answer.body)]
    : events.map((line) => JSON.parse(line.slice("data: ".length)));
  return byId ? all.sort((a, b) => String(a.id).localeCompare(String(b.id))) : all;
}

/** The last message: the JSON-RPC answer after any notifications (with `byId`, the highest id's). */
export const last = (answer: Answer, byId = false) => messages(answer, byId).at(-1);

/** A 2025 request: no 2026-07-28 envelope. */
const isLegacy = (sent: Sent): boolean =>
  (sent.body as { params?: { _meta?: Record<string, unknown> } }).params?._meta?.[PROTOCOL_VERSION] !==
  "2026-07-28";

/** How the SDK alone sends every answer to a 2025 request: as an event stream. */
const EVENT_STREAM = {
  "cache-control": "no-cache, no-transform",
  "content-type": "text/event-stream",
  "x-accel-buffering": "no",
};

/**
 * That `served`, answered `way`, answers as `alone` does: the same status, headers and JSON-RPC
 * messages, compared as JSON: every value byte for byte, the order of an object's members aside.
 * JSON gives that order no meaning and the SDK sets its own (`result` before `jsonrpc` and `id`, a
 * tool error's `content` before `isError`), so the fast path's bytes never equal its. Two answers
 * of the SDK must be the same bytes, unless `inAnyOrder` (a batch: the SDK's order is not fixed).
 */
export function expectSameAnswer(
  served: Answer,
  alone: Answer,
  way: Way | undefined,
  sent: Sent,
  inAnyOrder = false,
): void {
  expect(served.status).toBe(alone.status);
  if (way === "sdk" && !inAnyOrder) {
    expect(served).toEqual(alone);
    return;
  }
  if (way === "fast" && isLegacy(sent)) {
    // KNOWN DIFFERENCE, for the lead (issue 31): the SDK alone answers a 2025 call with an event
    // stream (one `event: message` holding the JSON-RPC answer); the fast path answers the same
    // JSON-RPC answer as an `application/json` body. The client accepted both (the fast path takes
    // no other call), so both are valid Streamable HTTP.
    expect(alone.headers).toEqual(EVENT_STREAM);
    expect(served.headers).toEqual({ "content-type": "application/json" });
  } else expect(served.headers).toEqual(alone.headers);
  expect(messages(served, inAnyOrder)).toStrictEqual(messages(alone, inAnyOrder));
  if (way !== "fast") return;
  // What parsing hides: a member written twice (`resultType` or `_meta` spliced onto a result that
  // has one), or any text but JSON's own serialization of the answer.
  expect(JSON.stringify(JSON.parse(served.body))).toBe(served.body);
}

const BOTH = "application/json, text/event-stream";
const PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
/** A 2026-07-28 request's `_meta`, its client declaring no capabilities. */
export const ENVELOPE = { [PROTOCOL_VERSION]: "2026-07-28", [CLIENT_CAPABILITIES]: {} };
/** The envelope of a client declaring `capabilities`. */
export const declaring = (capabilities: object) => ({ ...ENVELOPE, [CLIENT_CAPABILITIES]: capabilities });

export const call = (name: string, args: unknown, meta?: Record<string, unknown>, id: unknown = 7) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args, ...(meta && { _meta: meta }) },
});

/** A 2025 call as the v1 SDK client sends it (id 7), with `headers` changed. */
export const legacyCall = (name: string, args: unknown = {}, headers: Sent["headers"] = {}): Sent => ({
  headers: { accept: BOTH, "mcp-protocol-version": "2025-11-25", ...headers },
  body: call(name, args),
});

/** A 2026-07-28 call as the v2 SDK client sends it (id 7), with its envelope `meta` and `headers` changed. */
export const modernCall = (
  name: string,
  args: unknown = {},
  { meta = ENVELOPE, headers = {} }: { meta?: Record<string, unknown>; headers?: Sent["headers"] } = {},
): Sent => ({
  headers: {
    accept: BOTH,
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": name,
    ...headers,
  },
  body: call(name, args, meta),
});

export const at = (path: string, sent: Sent): Sent => ({ ...sent, path });
export const withBody = (sent: Sent, body: unknown): Sent => ({ ...sent, body });
