// The parser every layer decides on (src/mcp/inbound.ts): each JSON-RPC message read once, what
// it names (era, revision, capabilities, call, cancellation) and what reads as absent, never thrown.
import { describe, expect, it } from "vitest";
import {
  CONNECT_INPUT,
  type InboundMessage,
  LEGACY_REVISIONS,
  MODERN_REVISIONS,
  readInbound,
  readMessage,
  urlElicitationOf,
  writeMeta,
} from "../src/mcp/inbound.js";
import { toolNames } from "../src/names.js";

const PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const URL_ELICITATION = { elicitation: { url: {} } };

/** A 2026-07-28 envelope naming `revision` and declaring `capabilities` (left out when undefined). */
const envelope = (revision: string, capabilities?: object) => ({
  [PROTOCOL_VERSION]: revision,
  ...(capabilities && { [CLIENT_CAPABILITIES]: capabilities }),
});
const request = (method: string, params?: unknown, id: unknown = 1) => ({
  jsonrpc: "2.0",
  id,
  method,
  ...(params !== undefined && { params }),
});
const initialize = (protocolVersion: string, capabilities: object) =>
  request("initialize", { protocolVersion, capabilities, clientInfo: { name: "c", version: "1" } });
const modern = (method: string, params: Record<string, unknown> = {}, capabilities: object = {}) =>
  request(method, { ...params, _meta: envelope("2026-07-28", capabilities) });

describe("readInbound", () => {
  it("reads one message as the body's single message", () => {
    const raw = request("tools/list");
    const body = readInbound(raw);
    expect(body.raw).toBe(raw);
    expect(body.messages).toHaveLength(1);
    expect(body.single).toBe(body.messages[0]);
    expect(body.single).toMatchObject({ jsonrpc: true, id: 1, method: "tools/list" });
  });

  it("reads a batch as its messages, in order, with no single message", () => {
    const raw = [
      request("tools/list", undefined, 1),
      { jsonrpc: "2.0", method: "notifications/initialized" },
    ];
    const body = readInbound(raw);
    expect(body.raw).toBe(raw);
    expect(body.single).toBeUndefined();
    expect(body.messages.map(({ id, method }) => ({ id, method }))).toEqual([
      { id: 1, method: "tools/list" },
      { id: undefined, method: "notifications/initialized" },
    ]);
  });

  it("reads a batch of one as a batch, and an empty batch as no message", () => {
    expect(readInbound([request("tools/list")]).single).toBeUndefined();
    expect(readInbound([])).toMatchObject({ messages: [], single: undefined });
  });

  it("makes each call's name of a batch canonical", () => {
    const names = toolNames(["Pager.WhoAmI"], "underscore");
    const body = readInbound([request("tools/call", { name: "Pager_WhoAmI" }, 1)], names);
    expect(body.messages[0]?.call?.canonical).toBe("Pager.WhoAmI");
  });
});

describe("readMessage: the era and revision", () => {
  it.each(MODERN_REVISIONS)("an envelope naming %s is modern, naming its revision", (revision) => {
    const message = readMessage(request("tools/list", { _meta: envelope(revision) }));
    expect(message.era).toBe("modern");
    expect(message.revision).toBe(revision);
  });

  it.each([...LEGACY_REVISIONS, "2027-01-01", ""])(
    "an envelope naming %j (no 2026-07-28 revision) is legacy, still naming it",
    (revision) => {
      const message = readMessage(request("tools/list", { _meta: envelope(revision) }));
      expect(message.era).toBe("legacy");
      expect(message.revision).toBe(revision);
    },
  );

  it.each([
    ["no params", request("tools/list")],
    ["no _meta", request("tools/list", {})],
    ["a _meta without the protocol version", request("tools/list", { _meta: { progressToken: 1 } })],
    ["a protocol version not a string", request("tools/list", { _meta: { [PROTOCOL_VERSION]: 20260728 } })],
  ])("a message without an envelope (%s) is legacy and names no revision", (_case, raw) => {
    const message = readMessage(raw);
    expect(message.era).toBe("legacy");
    expect(message.revision).toBeUndefined();
  });

  it("initialize names the revision it asks for, and is legacy even asking for 2026-07-28", () => {
    expect(readMessage(initialize("2025-11-25", {}))).toMatchObject({
      era: "legacy",
      revision: "2025-11-25",
    });
    expect(readMessage(initialize("2026-07-28", {}))).toMatchObject({
      era: "legacy",
      revision: "2026-07-28",
    });
  });

  it("only initialize names a revision by protocolVersion", () => {
    expect(readMessage(request("tools/list", { protocolVersion: "2025-11-25" })).revision).toBeUndefined();
  });

  it("an envelope's revision wins over initialize's protocolVersion", () => {
    const raw = request("initialize", { protocolVersion: "2025-11-25", _meta: envelope("2026-07-28") });
    expect(readMessage(raw).revision).toBe("2026-07-28");
  });
});

describe("readMessage: the client's capabilities", () => {
  it("a modern message's are its envelope's", () => {
    expect(readMessage(modern("tools/list", {}, URL_ELICITATION)).capabilities).toEqual(URL_ELICITATION);
  });

  it("a modern envelope declaring none has none", () => {
    expect(
      readMessage(request("tools/list", { _meta: envelope("2026-07-28") })).capabilities,
    ).toBeUndefined();
  });

  it("a legacy initialize's are its params'", () => {
    expect(readMessage(initialize("2025-11-25", URL_ELICITATION)).capabilities).toEqual(URL_ELICITATION);
  });

  it("a legacy message other than initialize has none, even with envelope-like or params capabilities", () => {
    const legacyEnvelope = { _meta: envelope("2025-11-25", URL_ELICITATION), capabilities: URL_ELICITATION };
    expect(readMessage(request("tools/list", legacyEnvelope)).capabilities).toBeUndefined();
    expect(readMessage(request("tools/call", { name: "x", capabilities: {} })).capabilities).toBeUndefined();
  });

  it("a modern initialize's are its envelope's, not its params'", () => {
    const raw = request("initialize", {
      capabilities: { roots: {} },
      _meta: envelope("2026-07-28", URL_ELICITATION),
    });
    expect(readMessage(raw).capabilities).toEqual(URL_ELICITATION);
  });
});

describe("readMessage: progress, retries, calls and cancellations", () => {
  it.each([
    ["a string", "p-1"],
    ["a number", 7],
  ])("reads a progress token that is %s", (_case, token) => {
    expect(
      readMessage(request("tools/call", { name: "x", _meta: { progressToken: token } })).progressToken,
    ).toBe(token);
  });

  it("reads a modern retry answering inputResponses", () => {
    const inputResponses = { [CONNECT_INPUT]: { action: "accept" } };
    const message = readMessage(modern("tools/call", { name: "x", inputResponses }));
    expect(message.retrying).toBe(true);
    expect(message.inputResponses).toEqual(inputResponses);
  });

  it("reads a retry carrying only its requestState back", () => {
    const message = readMessage(modern("tools/call", { name: "x", requestState: "opaque" }));
    expect(message.retrying).toBe(true);
    expect(message.inputResponses).toBeUndefined();
  });

  it("reads a first call as no retry", () => {
    expect(readMessage(modern("tools/call", { name: "x" })).retrying).toBe(false);
  });

  it.each([
    ["the served form", "Pager_WhoAmI"],
    ["the dotted form", "Pager.WhoAmI"],
  ])("reads a call naming a tool in %s, canonical by the names given", (_case, name) => {
    const names = toolNames(["Pager.WhoAmI"], "underscore");
    const args = { verbose: true };
    expect(readMessage(request("tools/call", { name, arguments: args }), names).call).toEqual({
      name,
      canonical: "Pager.WhoAmI",
      arguments: args,
    });
  });

  it("reads either form as canonical when names are served dotted", () => {
    const names = toolNames(["Pager.WhoAmI"], "dotted");
    expect(readMessage(request("tools/call", { name: "Pager_WhoAmI" }), names).call?.canonical).toBe(
      "Pager.WhoAmI",
    );
  });

  it("reads a call of a tool the names do not know, or without names, as not canonical", () => {
    const names = toolNames(["Pager.WhoAmI"], "underscore");
    expect(readMessage(request("tools/call", { name: "Pager_Nope" }), names).call).toEqual({
      name: "Pager_Nope",
      canonical: undefined,
      arguments: undefined,
    });
    expect(readMessage(request("tools/call", { name: "Pager_WhoAmI" })).call?.canonical).toBeUndefined();
  });

  it.each([
    ["a number", 5],
    ["null", null],
    ["an object", { name: "x" }],
    ["absent", undefined],
  ])("reads a tools/call whose name is %s as no call", (_case, name) => {
    expect(readMessage(request("tools/call", { name })).call).toBeUndefined();
  });

  it("reads a name only in a tools/call", () => {
    expect(readMessage(request("prompts/get", { name: "x" })).call).toBeUndefined();
  });

  it.each([
    ["a number", 3],
    ["a string", "call-3"],
  ])("reads the request a cancellation names by %s", (_case, requestId) => {
    const message = readMessage({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId } });
    expect(message.cancels).toBe(requestId);
    expect(message.id).toBeUndefined();
  });

  it("reads a requestId only in a cancellation", () => {
    expect(readMessage(request("tools/call", { name: "x", requestId: 3 })).cancels).toBeUndefined();
  });

  it("tells whether a message has members beside a request's own", () => {
    expect(readMessage(request("tools/call", { name: "x" })).requestMembersOnly).toBe(true);
    expect(readMessage({ ...request("tools/call", { name: "x" }), result: {} }).requestMembersOnly).toBe(
      false,
    );
    expect(readMessage({ jsonrpc: "2.0", id: 4, result: {} }).requestMembersOnly).toBe(false);
  });

  it("reads a response: its id, no method, legacy", () => {
    const message = readMessage({ jsonrpc: "2.0", id: 4, result: {} });
    expect(message).toMatchObject({ jsonrpc: true, id: 4, era: "legacy", retrying: false });
    expect(message.method).toBeUndefined();
  });
});

describe("readMessage: what is not well formed reads as absent", () => {
  const EMPTY: InboundMessage = {
    jsonrpc: false,
    requestMembersOnly: false,
    id: undefined,
    method: undefined,
    params: undefined,
    meta: undefined,
    revision: undefined,
    era: "legacy",
    capabilities: undefined,
    progressToken: undefined,
    inputResponses: undefined,
    retrying: false,
    call: undefined,
    cancels: undefined,
  };

  it.each([
    ["undefined", undefined],
    ["null", null],
    ["a number", 42],
    ["a string", '{"jsonrpc":"2.0"}'],
    ["an array", [request("tools/list")]],
  ])("reads %s as an empty message", (_case, raw) => {
    expect(readMessage(raw)).toEqual(EMPTY);
  });

  it("reads an empty object as an empty message with no foreign members", () => {
    expect(readMessage({})).toEqual({ ...EMPTY, requestMembersOnly: true });
  });

  it("reads every malformed field as absent, never throwing", () => {
    const message = readMessage({
      jsonrpc: 2,
      id: { not: "an id" },
      method: 7,
      params: ["not", "an", "object"],
    });
    expect(message).toEqual({ ...EMPTY, requestMembersOnly: true });
  });

  it("reads a _meta, capabilities, inputResponses and progress token of the wrong types as absent", () => {
    const message = readMessage(
      request("tools/call", {
        name: "x",
        inputResponses: ["not an object"],
        _meta: { [PROTOCOL_VERSION]: "2026-07-28", [CLIENT_CAPABILITIES]: "all", progressToken: true },
      }),
    );
    expect(message).toMatchObject({ era: "modern", retrying: false });
    expect(message.capabilities).toBeUndefined();
    expect(message.inputResponses).toBeUndefined();
    expect(message.progressToken).toBeUndefined();
    expect(readMessage(request("tools/list", { _meta: "envelope" })).meta).toBeUndefined();
  });

  it("reads jsonrpc as true only for 2.0, an id only as a string or number", () => {
    expect(readMessage({ jsonrpc: "1.0", id: null, method: "ping" })).toMatchObject({
      jsonrpc: false,
      id: undefined,
      method: "ping",
    });
  });

  it("reads params and _meta as they came, when objects", () => {
    const meta = { progressToken: "p" };
    const params = { name: "x", _meta: meta };
    const message = readMessage(request("tools/call", params));
    expect(message.params).toBe(params);
    expect(message.meta).toBe(meta);
  });
});

describe("urlElicitationOf", () => {
  it("a modern client declaring URL elicitation in its envelope is sent an input-required result", () => {
    expect(
      urlElicitationOf(readMessage(modern("tools/call", { name: "x" }, URL_ELICITATION)), undefined),
    ).toBe("input_required");
  });

  it("a modern client is judged by its envelope alone, not by what an initialize said", () => {
    const message = readMessage(modern("tools/call", { name: "x" }, {}));
    expect(urlElicitationOf(message, URL_ELICITATION)).toBeUndefined();
  });

  it("a modern retry already answering the connect request is not asked again", () => {
    const raw = modern(
      "tools/call",
      { name: "x", inputResponses: { [CONNECT_INPUT]: { action: "accept" } } },
      URL_ELICITATION,
    );
    expect(urlElicitationOf(readMessage(raw), undefined)).toBeUndefined();
  });

  it("a modern retry answering something else is asked", () => {
    const raw = modern("tools/call", { name: "x", inputResponses: { other: {} } }, URL_ELICITATION);
    expect(urlElicitationOf(readMessage(raw), undefined)).toBe("input_required");
  });

  it("a legacy client that declared URL elicitation at initialize gets the error", () => {
    expect(urlElicitationOf(readMessage(request("tools/call", { name: "x" })), URL_ELICITATION)).toBe(
      "error",
    );
  });

  it("a legacy client is judged by what it declared at initialize, not by a message's envelope", () => {
    const raw = request("tools/call", { name: "x", _meta: envelope("2025-11-25", URL_ELICITATION) });
    expect(urlElicitationOf(readMessage(raw), undefined)).toBeUndefined();
  });

  it.each([
    ["unknown", undefined],
    ["without elicitation", {}],
    ["with form elicitation only", { elicitation: { form: {} } }],
  ])("a legacy client whose capabilities are %s takes none", (_case, capabilities) => {
    expect(urlElicitationOf(readMessage(request("tools/call", { name: "x" })), capabilities)).toBeUndefined();
  });
});

describe("writeMeta", () => {
  it("makes params and _meta when absent", () => {
    const raw: Record<string, unknown> = { jsonrpc: "2.0", id: 1, method: "tools/list" };
    writeMeta(raw, "k", 1);
    expect(raw).toEqual({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: { k: 1 } } });
  });

  it("makes _meta in params that have none, keeping the params", () => {
    const raw = request("tools/call", { name: "x", arguments: { a: 1 } });
    writeMeta(raw, "k", "v");
    expect(raw.params).toEqual({ name: "x", arguments: { a: 1 }, _meta: { k: "v" } });
  });

  it("replaces what the client sent under the key, keeping the rest of its _meta", () => {
    const raw = request("tools/list", { _meta: { k: "forged", progressToken: "p" } });
    writeMeta(raw, "k", "ours");
    expect(raw.params).toEqual({ _meta: { k: "ours", progressToken: "p" } });
  });

  it("replaces params and _meta that are not objects", () => {
    const raw = { jsonrpc: "2.0", id: 1, method: "x", params: { _meta: ["not", "an", "object"] } };
    writeMeta(raw, "k", 1);
    expect(raw.params).toEqual({ _meta: { k: 1 } });
    const arrayParams = { jsonrpc: "2.0", id: 1, method: "x", params: [1, 2] };
    writeMeta(arrayParams, "k", 1);
    expect(arrayParams.params).toEqual({ _meta: { k: 1 } });
  });

  it("is read back by readMessage as the message's _meta", () => {
    const raw = request("tools/list", { _meta: envelope("2026-07-28") });
    writeMeta(raw, "k", "v");
    expect(readMessage(raw)).toMatchObject({
      era: "modern",
      meta: { k: "v", [PROTOCOL_VERSION]: "2026-07-28" },
    });
  });

  it.each([
    ["undefined", undefined],
    ["null", null],
    ["a string", "message"],
    ["an array", [request("tools/list")]],
  ])("leaves %s alone, never throwing", (_case, raw) => {
    const before = structuredClone(raw);
    expect(() => writeMeta(raw, "k", 1)).not.toThrow();
    expect(raw).toEqual(before);
  });
});
