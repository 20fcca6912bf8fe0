// The fast path (dispatch.ts) proven equal to the SDK: each request goes to the server's endpoint
// and to one handing every request to the SDK alone, over the same registries (side-by-side.ts),
// and their answers must agree: per revision, header, error, scope, kept result and cancellation.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RENDERS_VIEWS } from "../apps/clients.js";
import {
  type Answer,
  at,
  call,
  declaring,
  ENVELOPE,
  expectSameAnswer,
  INFO,
  kept,
  last,
  legacyCall,
  modernCall,
  nextWait,
  type Sent,
  type SideBySide,
  sideBySide,
  type Way,
  withBody,
} from "./side-by-side.js";

let pair: SideBySide;
beforeAll(async () => {
  pair = await sideBySide();
});
afterAll(() => pair?.close());

interface Case {
  name: string;
  sent: Sent;
  /** Which way the server answers it. */
  way: Way;
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
const IDENTIFIED = { resultType: "complete", _meta: { "io.modelcontextprotocol/serverInfo": INFO } };
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
  // Accept: the fast path leaves a call not accepting both types to the SDK, which refuses it on
  // 2025 and answers it as JSON on 2026-07-28.
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
  // What the SDK's verdict on a 2026-07-28 call turns on besides its envelope and headers, each
  // sent after the same envelope was served plainly: the id's type and members of its own.
  fastly(
    "2026-07-28, a string id",
    withBody(modernCall("Pager_WhoAmI"), call("Pager_WhoAmI", {}, ENVELOPE, "call-7")),
    MODERN_OK,
  ),
  bySdk(
    "2026-07-28, a fractional id",
    withBody(modernCall("Pager_WhoAmI"), call("Pager_WhoAmI", {}, ENVELOPE, 7.5)),
    400,
    refused(-32600),
  ),
  bySdk(
    "2026-07-28 with a member beside the request's own",
    withBody(modernCall("Pager_WhoAmI"), { ...call("Pager_WhoAmI", {}, ENVELOPE), result: {} }),
    400,
    refused(-32600),
  ),
  fastly(
    "2026-07-28, an envelope too long to keep the verdict of",
    modernCall("Pager_WhoAmI", {}, { meta: { ...ENVELOPE, "test/padding": "x".repeat(4_000) } }),
    MODERN_OK,
  ),
  bySdk(
    "2026-07-28, an envelope naming its client wrongly",
    modernCall("Pager_WhoAmI", {}, { meta: { ...ENVELOPE, "io.modelcontextprotocol/clientInfo": "c" } }),
    400,
    INVALID_PARAMS,
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
    "/mcp/sheets/readonly on 2025, a write tool",
    at("/mcp/sheets/readonly", legacyCall("Sheets_WriteToCell")),
    NOT_HERE,
  ),
  fastly(
    "a read-only token, a write tool",
    legacyCall("Sheets_WriteToCell", {}, { authorization: "Bearer read-only" }),
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
    const { served, alone, way: taken } = await pair.both(sent);
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
      const { served, alone, way } = await pair.both(sent);
      expect(way).toBe("fast");
      expectSameAnswer(served, alone, way, sent);
      expect(last(served)).toMatchObject({
        result: { content: [{ type: "text", text: JSON.stringify(now) }], structuredContent: now },
      });
    }
  });
});

describe("a call cancelled while it runs", () => {
  /** A call of `Test_Wait` under an id no other test uses, so the way noted for it is its own. */
  const waitCall = (sent: Sent, id: number): Sent => withBody(sent, { ...(sent.body as object), id });
  const cancelling = (requestId: number, meta?: Record<string, unknown>) => ({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId, ...(meta && { _meta: meta }) },
  });
  const modernHeaders = modernCall("Test_Wait").headers;
  it.each([
    ["2025-11-25", waitCall(legacyCall("Test_Wait"), 90), withBody(legacyCall("Test_Wait"), cancelling(90))],
    [
      "2026-07-28",
      waitCall(modernCall("Test_Wait"), 91),
      {
        headers: { ...modernHeaders, "mcp-method": "notifications/cancelled", "mcp-name": undefined },
        body: cancelling(91, ENVELOPE),
      },
    ],
  ])("%s: is answered as the SDK alone answers it", async (_revision, sent, cancel: Sent) => {
    const cancelled = async (to: "served" | "alone"): Promise<Answer> => {
      const running = nextWait();
      const answer = pair.post(to, sent);
      await running;
      expect((await pair.post(to, cancel)).status).toBe(202);
      return answer;
    };
    const served = await cancelled("served");
    expect(pair.way((sent.body as { id: number }).id)).toBe("fast");
    expectSameAnswer(served, await cancelled("alone"), "fast", sent);
    expect(last(served)).toMatchObject({
      result: { isError: true, content: [{ type: "text", text: expect.stringContaining("cancelled") }] },
    });
  });
});
