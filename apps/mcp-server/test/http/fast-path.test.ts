// The fast path (dispatch.ts) proven equal to the SDK: each request goes to two endpoints in this
// process over the same registries and sandbox, one dispatching as the server does, the other
// handing every request to the SDK's handler, and their answers must agree.
import { createServer, type IncomingMessage, request } from "node:http";
import type { AddressInfo } from "node:net";
import { defineTool, READ_ONLY_HINTS, silentLogger, ToolError } from "@toolkits/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { connectors } from "../../src/connectors/selection.js";
import { type Answering, createDispatcher, type Dispatcher } from "../../src/dispatch.js";
import { deferredSandboxHost } from "../../src/host.js";
import { connectorTarget } from "../../src/http/connectors.js";
import { mcpEndpoint } from "../../src/http/endpoint.js";
import { iconSet } from "../../src/icons/index.js";
import { servedRegistries } from "../../src/served.js";
import { serverInfo } from "../../src/server.js";
import { TOOLKITS } from "../../src/toolkits.js";
import type { View } from "../../src/views.js";
import { RENDERS_VIEWS } from "../apps/clients.js";

/** What `Test.Kept` answers: one object, which the tool keeps and a test changes between calls. */
const kept = { count: 1, items: ["first"] };
/** Called by each `Test.Wait` call once it runs, so a test cancels it only then. */
let waiting: () => void = () => {};

const NOTHING = z.object({});
const TEST_TOOL = { hints: READ_ONLY_HINTS, auth: {}, input: NOTHING, output: NOTHING };
/** What the toolkits' tools never do: keep their result, ask to connect, run until cancelled, report progress. */
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
const info = serverInfo(iconSet(PUBLIC_URL));
const selections = connectors(KITS, TOOLS);
/** What the front door narrows a token to (its scopes): here, the read-only tools. */
const READ_ONLY_TOKEN: View = { id: "test:read-only", admits: (tool) => tool.hints.readOnly };

/** Which way the server answered each request, by JSON-RPC id: from the registry, or by the SDK. */
const ways = new Map<unknown, "fast" | "sdk">();

/** `dispatcher`, noting which way it answers each request. */
function noting(dispatcher: Dispatcher): Dispatcher {
  return {
    dispatch: (message, scope, answering, headers) => {
      const id = (message as { id?: unknown } | null)?.id;
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
      return dispatcher.dispatch(message, scope, noted as typeof answering, headers);
    },
  };
}

/** The SDK alone: every request to its handler, as if there were no fast path. */
const SDK_ALONE: Dispatcher = { dispatch: (_message, _scope, answering) => answering.sdk() };

/** `/mcp` and the connector URLs, answered on loopback through `dispatcher`. */
async function serve(dispatcher: Dispatcher): Promise<{ port: number; close(): void }> {
  const mcp = mcpEndpoint({
    registryOf,
    serverInfo: info,
    dispatcher,
    authenticate: async (req: IncomingMessage) => ({
      caller: { key: "" },
      view: req.headers.authorization === "Bearer read-only" ? READ_ONLY_TOKEN : undefined,
    }),
    maxBodyBytes: 1_000_000,
    requestTimeoutMs: 30_000,
    graceOver: new AbortController().signal,
    apps: true,
    logger: silentLogger,
  });
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    mcp(req, res, () => {}, connectorTarget(selections, path)).catch((error: Error) => {
      res.writeHead(500).end(error.message);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as AddressInfo).port, close: () => server.close() };
}

let fast: Awaited<ReturnType<typeof serve>>;
let sdk: Awaited<ReturnType<typeof serve>>;
beforeAll(async () => {
  fast = await serve(noting(createDispatcher(registryOf, info)));
  sdk = await serve(SDK_ALONE);
});
afterAll(() => {
  fast?.close();
  sdk?.close();
});

interface Sent {
  path?: string;
  /** Undefined leaves a header out. */
  headers: Record<string, string | undefined>;
  /** The JSON-RPC message (or batch). */
  body: unknown;
}

interface Answer {
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
function post(port: number, sent: Sent): Promise<Answer> {
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
function messages(answer: Answer, byId = false): Record<string, unknown>[] {
  const json = !answer.headers["content-type"]?.startsWith("text/event-stream");
  const events = answer.body.split("\n").filter((line) => line.startsWith("data: "));
  const all = json
    ? [JSON.parse(answer.body)]
    : events.map((line) => JSON.parse(line.slice("data: ".length)));
  return byId ? all.sort((a, b) => String(a.id).localeCompare(String(b.id))) : all;
}

/** The last message: the JSON-RPC answer after any notifications (with `byId`, the highest id's). */
const last = (answer: Answer, byId = false) => messages(answer, byId).at(-1);

/** `sent` to the server as it is, then to the SDK alone; both answers, and the server's way. */
async function both(sent: Sent): Promise<{ served: Answer; alone: Answer; way: string | undefined }> {
  ways.clear();
  const served = await post(fast.port, sent);
  const way = ways.get((sent.body as { id?: unknown }).id);
  return { served, alone: await post(sdk.port, sent), way };
}

/** A 2025 request: no 2026-07-28 envelope. */
const isLegacy = (sent: Sent): boolean => !JSON.stringify(sent.body).includes('"2026-07-28"');

/** How the SDK alone sends every answer to a 2025 request: as an event stream. */
const EVENT_STREAM = {
  "cache-control": "no-cache, no-transform",
  "content-type": "text/event-stream",
  "x-accel-buffering": "no",
};

/**
 * That `served` answers as `alone` does: the same status, headers and JSON-RPC messages, which are
 * compared as JSON: every value byte for byte, the order of an object's members aside. JSON gives
 * that order no meaning and the SDK sets its own (`result` before `jsonrpc` and `id`, a tool error's
 * `content` before `isError`), so the fast path's bytes never equal its. Two answers of the SDK
 * must be the same bytes, except where `inAnyOrder` says the SDK's order of messages is not fixed.
 */
function expectSameAnswer(
  served: Answer,
  alone: Answer,
  way: string | undefined,
  sent: Sent,
  inAnyOrder = false,
) {
  expect(served.status).toBe(alone.status);
  if (way === "sdk" && !inAnyOrder) return expect(served).toEqual(alone);
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
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};
const declaring = (capabilities: Record<string, unknown>) => ({
  ...ENVELOPE,
  "io.modelcontextprotocol/clientCapabilities": capabilities,
});

const call = (name: string, args: unknown, meta?: Record<string, unknown>, id: unknown = 7) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args, ...(meta && { _meta: meta }) },
});

/** A 2025 call as the v1 SDK client sends it, with `headers` changed. */
const legacyCall = (name: string, args: unknown = {}, headers: Sent["headers"] = {}): Sent => ({
  headers: { accept: BOTH, "mcp-protocol-version": "2025-11-25", ...headers },
  body: call(name, args),
});

/** A 2026-07-28 call as the v2 SDK client sends it, with its envelope `meta` and `headers` changed. */
const modernCall = (
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

const at = (path: string, sent: Sent): Sent => ({ ...sent, path });
const withBody = (sent: Sent, body: unknown): Sent => ({ ...sent, body });

interface Case {
  name: string;
  sent: Sent;
  /** Which way the server answers it. */
  way: "fast" | "sdk";
  status: number;
  /** What the JSON-RPC answer says, so a case both answer wrongly fails too. */
  says: Record<string, unknown>;
  /** The SDK answers a batch's calls as each finishes: compare them by id. */
  inAnyOrder?: boolean;
}

const fastly = (name: string, sent: Sent, says: Record<string, unknown>): Case => ({
  name,
  sent,
  way: "fast",
  status: 200,
  says,
});
const bySdk = (name: string, sent: Sent, status: number, says: Record<string, unknown>): Case => ({
  name,
  sent,
  way: "sdk",
  status,
  says,
});

const OK = { result: { content: [expect.anything()], structuredContent: expect.any(Object) } };
const IDENTIFIED = { resultType: "complete", _meta: { "io.modelcontextprotocol/serverInfo": info } };
const MODERN_OK = { result: { ...OK.result, ...IDENTIFIED } };
const TOOL_ERROR = { result: { isError: true } };
const NOT_HERE = {
  result: {
    isError: true,
    content: [{ type: "text", text: expect.stringMatching(/does not exist on this server/) }],
  },
};
const STEPS = { result: { structuredContent: { steps: 2 } } };
const refused = (code: number) => ({ error: { code } });
const NOT_ACCEPTABLE = refused(-32000);
const HEADER_MISMATCH = refused(-32020);
const INVALID_PARAMS = refused(-32602);

const CASES: Case[] = [
  // Each revision, as its clients send a plain call.
  fastly("2025-11-25", legacyCall("Pager_WhoAmI"), OK),
  fastly("2025-06-18", legacyCall("Pager_WhoAmI", {}, { "mcp-protocol-version": "2025-06-18" }), OK),
  fastly("2025-03-26", legacyCall("Pager_WhoAmI", {}, { "mcp-protocol-version": "2025-03-26" }), OK),
  fastly(
    "2025 without MCP-Protocol-Version",
    legacyCall("Pager_WhoAmI", {}, { "mcp-protocol-version": undefined }),
    OK,
  ),
  fastly("2025, the dotted name", legacyCall("Pager.WhoAmI"), OK),
  fastly("2026-07-28", modernCall("Pager_WhoAmI"), MODERN_OK),
  fastly("2026-07-28, the dotted name", modernCall("Pager.WhoAmI"), MODERN_OK),
  fastly(
    "2026-07-28 naming its client in the envelope",
    modernCall(
      "Pager_WhoAmI",
      {},
      { meta: { ...ENVELOPE, "io.modelcontextprotocol/clientInfo": { name: "c", version: "1" } } },
    ),
    MODERN_OK,
  ),
  // Accept: 2025 needs both types; 2026-07-28 is answered whatever it accepts, by the SDK.
  bySdk(
    "2025 accepting only JSON",
    legacyCall("Pager_WhoAmI", {}, { accept: "application/json" }),
    406,
    NOT_ACCEPTABLE,
  ),
  bySdk(
    "2025 accepting only events",
    legacyCall("Pager_WhoAmI", {}, { accept: "text/event-stream" }),
    406,
    NOT_ACCEPTABLE,
  ),
  bySdk("2025 without Accept", legacyCall("Pager_WhoAmI", {}, { accept: undefined }), 406, NOT_ACCEPTABLE),
  bySdk(
    "2026-07-28 accepting only JSON",
    modernCall("Pager_WhoAmI", {}, { headers: { accept: "application/json" } }),
    200,
    MODERN_OK,
  ),
  bySdk(
    "2026-07-28 without Accept",
    modernCall("Pager_WhoAmI", {}, { headers: { accept: undefined } }),
    200,
    MODERN_OK,
  ),
  // MCP-Protocol-Version, against the envelope.
  bySdk(
    "2026-07-28 without MCP-Protocol-Version",
    modernCall("Pager_WhoAmI", {}, { headers: { "mcp-protocol-version": undefined } }),
    400,
    HEADER_MISMATCH,
  ),
  bySdk(
    "2026-07-28 under a 2025 MCP-Protocol-Version",
    modernCall("Pager_WhoAmI", {}, { headers: { "mcp-protocol-version": "2025-11-25" } }),
    400,
    HEADER_MISMATCH,
  ),
  bySdk(
    "2025 under the 2026-07-28 MCP-Protocol-Version",
    legacyCall("Pager_WhoAmI", {}, { "mcp-protocol-version": "2026-07-28" }),
    400,
    INVALID_PARAMS,
  ),
  bySdk(
    "2025 under an unknown MCP-Protocol-Version",
    legacyCall("Pager_WhoAmI", {}, { "mcp-protocol-version": "2024-01-01" }),
    400,
    refused(-32000),
  ),
  bySdk(
    "an envelope naming a revision not served",
    modernCall(
      "Pager_WhoAmI",
      {},
      {
        meta: { ...ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2027-01-01" },
        headers: { "mcp-protocol-version": "2027-01-01" },
      },
    ),
    400,
    refused(-32022),
  ),
  // Mcp-Method and Mcp-Name: 2026-07-28 checks them against the body; 2025 reads neither.
  bySdk(
    "2026-07-28 without Mcp-Method",
    modernCall("Pager_WhoAmI", {}, { headers: { "mcp-method": undefined } }),
    400,
    HEADER_MISMATCH,
  ),
  bySdk(
    "2026-07-28, Mcp-Method disagreeing",
    modernCall("Pager_WhoAmI", {}, { headers: { "mcp-method": "tools/list" } }),
    400,
    HEADER_MISMATCH,
  ),
  bySdk(
    "2026-07-28 without Mcp-Name",
    modernCall("Pager_WhoAmI", {}, { headers: { "mcp-name": undefined } }),
    400,
    HEADER_MISMATCH,
  ),
  bySdk(
    "2026-07-28, Mcp-Name disagreeing",
    modernCall("Pager_WhoAmI", {}, { headers: { "mcp-name": "Pager_ListIncidents" } }),
    400,
    HEADER_MISMATCH,
  ),
  bySdk(
    "2026-07-28, Mcp-Name in the other name form",
    modernCall("Pager_WhoAmI", {}, { headers: { "mcp-name": "Pager.WhoAmI" } }),
    400,
    HEADER_MISMATCH,
  ),
  fastly(
    "2025, Mcp-Method and Mcp-Name disagreeing",
    legacyCall("Pager_WhoAmI", {}, { "mcp-method": "tools/list", "mcp-name": "Pager_ListIncidents" }),
    OK,
  ),
  // Errors: a tool's are results; malformed params are the SDK's to refuse.
  fastly("2025, an unknown tool", legacyCall("Pager_NoSuchTool"), NOT_HERE),
  fastly("2026-07-28, an unknown tool", modernCall("Pager_NoSuchTool"), NOT_HERE),
  fastly("2025, invalid arguments", legacyCall("Pager_GetIncident", { incident_id: 5 }), TOOL_ERROR),
  fastly("2026-07-28, invalid arguments", modernCall("Pager_GetIncident", { incident_id: 5 }), TOOL_ERROR),
  fastly("2025, a tool error", legacyCall("Pager_GetIncident", { incident_id: "PNOSUCH" }), TOOL_ERROR),
  fastly("2026-07-28, a tool error", modernCall("Pager_GetIncident", { incident_id: "PNOSUCH" }), TOOL_ERROR),
  bySdk("2025, arguments an array", legacyCall("Pager_WhoAmI", []), 200, INVALID_PARAMS),
  bySdk("2026-07-28, arguments a string", modernCall("Pager_WhoAmI", "x"), 200, INVALID_PARAMS),
  bySdk(
    "2025 without a tool name",
    withBody(legacyCall("Pager_WhoAmI"), { jsonrpc: "2.0", id: 7, method: "tools/call", params: {} }),
    200,
    INVALID_PARAMS,
  ),
  bySdk(
    "2026-07-28 without params",
    withBody(modernCall("Pager_WhoAmI"), { jsonrpc: "2.0", id: 7, method: "tools/call" }),
    400,
    INVALID_PARAMS,
  ),
  bySdk(
    "2025, id null",
    withBody(legacyCall("Pager_WhoAmI"), call("Pager_WhoAmI", {}, undefined, null)),
    400,
    refused(-32600),
  ),
  {
    ...bySdk(
      "2025, a batch of two calls",
      withBody(legacyCall("Pager_WhoAmI"), [
        call("Pager_WhoAmI", {}),
        call("Pager_NoSuchTool", {}, undefined, 8),
      ]),
      200,
      NOT_HERE,
    ),
    inAnyOrder: true,
  },
  // Progress: asked for, the call goes to the SDK either way, and its whole event stream agrees.
  bySdk(
    "2025 with a progress token",
    withBody(legacyCall("Test_Steps"), call("Test_Steps", {}, { progressToken: "p" })),
    200,
    STEPS,
  ),
  bySdk(
    "2026-07-28 with a progress token",
    modernCall("Test_Steps", {}, { meta: { ...ENVELOPE, progressToken: "p" } }),
    200,
    STEPS,
  ),
  fastly("2025, an empty _meta", withBody(legacyCall("Test_Steps"), call("Test_Steps", {}, {})), STEPS),
  bySdk(
    "2025, other _meta",
    withBody(legacyCall("Test_Steps"), call("Test_Steps", {}, { "test/trace": "t" })),
    200,
    STEPS,
  ),
  // MCP Apps (--apps on): an app-only tool, for a client declaring the extension and for others.
  fastly(
    "2026-07-28 declaring MCP Apps, an app-only tool",
    modernCall("Pager_RefreshIncidents", {}, { meta: declaring(RENDERS_VIEWS) }),
    MODERN_OK,
  ),
  fastly(
    "2026-07-28 not declaring MCP Apps, an app-only tool",
    modernCall("Pager_RefreshIncidents"),
    NOT_HERE,
  ),
  fastly("2025 (MCP Apps unknown), an app-only tool", legacyCall("Pager_RefreshIncidents"), OK),
  // Scopes: a connector URL's selection, a token's view, the search catalogue.
  fastly(
    "/mcp/pager/readonly, a tool inside",
    at("/mcp/pager/readonly", modernCall("Pager_ListIncidents")),
    MODERN_OK,
  ),
  fastly(
    "/mcp/pager/readonly, a tool outside",
    at("/mcp/pager/readonly", modernCall("Sheets_WhoAmI")),
    NOT_HERE,
  ),
  fastly(
    "/mcp/pager/readonly on 2025, a write tool",
    at("/mcp/pager/readonly", legacyCall("Pager_CreateIncident")),
    NOT_HERE,
  ),
  fastly(
    "a read-only token, a write tool",
    legacyCall("Pager_CreateIncident", {}, { authorization: "Bearer read-only" }),
    NOT_HERE,
  ),
  fastly(
    "a read-only token on 2026-07-28, a read tool",
    modernCall("Pager_WhoAmI", {}, { headers: { authorization: "Bearer read-only" } }),
    MODERN_OK,
  ),
  fastly(
    "/mcp/search, search_tools",
    at("/mcp/search", modernCall("search_tools", { query: "who is on call" })),
    MODERN_OK,
  ),
  fastly(
    "/mcp/search on 2025, call_tool",
    at("/mcp/search", legacyCall("call_tool", { name: "Pager_WhoAmI", arguments: {} })),
    OK,
  ),
  // A tool whose argument is mirrored into an Mcp-Param header (SEP-2243), which only the SDK checks.
  bySdk(
    "2026-07-28, a tool mirroring an argument into Mcp-Param",
    modernCall(
      "Sheets_GetSpreadsheetMetadata",
      { spreadsheet_id: "quarterly-report-0" },
      {
        headers: { "mcp-param-spreadsheet-id": "quarterly-report-0" },
      },
    ),
    200,
    MODERN_OK,
  ),
  fastly(
    "2025, a tool mirroring an argument into Mcp-Param",
    legacyCall("Sheets_GetSpreadsheetMetadata", { spreadsheet_id: "quarterly-report-0" }),
    OK,
  ),
  // An account to connect: an input-required result (stamped whole, not spliced), or an error.
  fastly(
    "2026-07-28 taking URL elicitation, a call needing a connection",
    modernCall("Test_Connect", {}, { meta: declaring({ elicitation: { url: {} } }) }),
    { result: { resultType: "input_required", _meta: IDENTIFIED._meta } },
  ),
  fastly(
    "2026-07-28 taking no URL elicitation, a call needing a connection",
    modernCall("Test_Connect"),
    TOOL_ERROR,
  ),
  fastly("2025, a call needing a connection", legacyCall("Test_Connect"), TOOL_ERROR),
];

describe("the fast path answers as the SDK alone does", () => {
  it.each(CASES)("$name", async ({ sent, way, status, says, inAnyOrder }) => {
    const { served, alone, way: taken } = await both(sent);
    expectSameAnswer(served, alone, taken, sent, inAnyOrder);
    expect(taken).toBe(way);
    expect(served.status).toBe(status);
    expect(last(served, inAnyOrder)).toMatchObject(says);
  });
});

describe("a result its tool keeps and changes between calls", () => {
  it.each([
    ["2025-11-25", legacyCall("Test_Kept")],
    ["2026-07-28", modernCall("Test_Kept")],
  ])("%s: is answered as it is at each call, as the SDK alone answers it", async (_revision, sent) => {
    for (const item of ["second", "third"]) {
      kept.count += 1;
      kept.items.push(item);
      const now = structuredClone(kept);
      const { served, alone, way } = await both(sent);
      expect(way).toBe("fast");
      expectSameAnswer(served, alone, way, sent);
      expect(last(served)).toMatchObject({
        result: { content: [{ type: "text", text: JSON.stringify(now) }], structuredContent: now },
      });
    }
  });
});

describe("a call cancelled while it runs", () => {
  it.each([
    [
      "2025-11-25",
      legacyCall("Test_Wait"),
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7 } },
    ],
    [
      "2026-07-28",
      modernCall("Test_Wait"),
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7, _meta: ENVELOPE } },
    ],
  ])("%s: is answered as the SDK alone answers it", async (_revision, sent, cancellation) => {
    const cancel: Sent = {
      headers: { ...sent.headers, "mcp-method": sent.headers["mcp-method"] && "notifications/cancelled" },
      body: cancellation,
    };
    const answer = async (port: number) => {
      const running = new Promise<void>((resolve) => (waiting = resolve));
      const answered = post(port, sent);
      await running;
      expect((await post(port, cancel)).status).toBe(202);
      return answered;
    };
    ways.clear();
    const served = await answer(fast.port);
    expect(ways.get(7)).toBe("fast");
    expectSameAnswer(served, await answer(sdk.port), "fast", sent);
    expect(last(served)).toMatchObject({
      result: { isError: true, content: [{ type: "text", text: expect.stringContaining("cancelled") }] },
    });
  });
});
