// One stdio connection as its requests' scopes need it (src/stdio/session.ts): the era its first
// request fixes, what its client declared at initialize, each tool call's own controller by id,
// cancellation, release and shutdown.
import { getEventListeners } from "node:events";
import { UI_EXTENSION, VIEW_MIME_TYPE } from "@toolkits/apps";
import { readMessage } from "@toolkits/core/mcp";
import { describe, expect, it } from "vitest";
import { StdioSession } from "../../src/stdio/session.js";

const PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const URL_ELICITATION = { elicitation: { url: {} } };
const RENDERS_VIEWS = { extensions: { [UI_EXTENSION]: { mimeTypes: [VIEW_MIME_TYPE] } } };

const legacyCall = (id: number | string = 7) =>
  readMessage({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "x" } });
const modernCall = (capabilities: object = {}, id: number | string = 7) =>
  readMessage({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "x", _meta: { [PROTOCOL_VERSION]: "2026-07-28", [CLIENT_CAPABILITIES]: capabilities } },
  });
const initialize = (capabilities: object) =>
  readMessage({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities, clientInfo: { name: "c", version: "1" } },
  });
const cancelled = (requestId: number | string) =>
  readMessage({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId } });

/** A session that has read `messages`, as the transport hands each to it. */
function reading(apps: boolean, ...messages: ReturnType<typeof readMessage>[]): StdioSession {
  const session = new StdioSession(apps);
  for (const message of messages) session.observe(message);
  return session;
}

describe("StdioSession: the connection's era", () => {
  it("is fixed by the first request: a legacy connection stays legacy", () => {
    const session = reading(false, initialize({}), modernCall());
    expect(session.scope(modernCall()).era).toBe("legacy");
  });

  it("is fixed by the first request: a modern connection stays modern", () => {
    const session = reading(false, modernCall(), legacyCall());
    expect(session.scope(legacyCall()).era).toBe("modern");
  });

  it("is not fixed by a response read first", () => {
    const session = reading(false, readMessage({ jsonrpc: "2.0", id: 1, result: {} }), modernCall());
    expect(session.scope(legacyCall()).era).toBe("modern");
  });

  it("is fixed by a notification read first", () => {
    const session = reading(false, readMessage({ jsonrpc: "2.0", method: "notifications/initialized" }));
    session.observe(modernCall());
    expect(session.scope(modernCall()).era).toBe("legacy");
  });

  it("before any request, is the message's own", () => {
    expect(new StdioSession().scope(modernCall()).era).toBe("modern");
  });
});

describe("StdioSession: what the client declared at initialize", () => {
  it("decides a legacy client's URL elicitation", () => {
    expect(reading(false, initialize(URL_ELICITATION)).scope(legacyCall()).urlElicitation()).toBe("error");
    expect(reading(false, initialize({})).scope(legacyCall()).urlElicitation()).toBeUndefined();
  });

  it("decides a legacy client's MCP Apps view, known, never unknown", () => {
    expect(reading(true, initialize(RENDERS_VIEWS)).scope(legacyCall()).view.apps).toBe("declared");
    expect(reading(true, initialize(URL_ELICITATION)).scope(legacyCall()).view.apps).toBeUndefined();
    expect(reading(true).scope(legacyCall()).view.apps).toBeUndefined();
  });

  it("takes no MCP Apps view with --apps off", () => {
    expect(reading(false, initialize(RENDERS_VIEWS)).scope(legacyCall()).view.apps).toBeUndefined();
  });

  it("is what the latest initialize declared", () => {
    const session = reading(true, initialize(RENDERS_VIEWS), initialize({}));
    expect(session.scope(legacyCall()).view.apps).toBeUndefined();
  });

  it("does not decide a modern client's, whose every request declares its own", () => {
    const session = reading(true, modernCall(RENDERS_VIEWS));
    expect(session.scope(modernCall({})).view.apps).toBeUndefined();
    expect(session.scope(modernCall(URL_ELICITATION)).urlElicitation()).toBe("input_required");
    expect(session.scope(modernCall(RENDERS_VIEWS)).view.apps).toBe("declared");
  });

  it("is the scope's, the anonymous caller's, over the server's whole selection", () => {
    const scope = reading(false, initialize({})).scope(legacyCall());
    expect(scope.caller).toEqual({ key: "" });
    expect(scope.view.id).toBe("");
  });
});

describe("StdioSession: each tool call's controller", () => {
  it("is one per id, however often asked, on either path", () => {
    const session = new StdioSession();
    const call = session.call(7);
    expect(session.call(7)).toBe(call);
    expect(session.scope(legacyCall()).call(7)).toBe(call);
    expect(session.call(8)).not.toBe(call);
    expect(session.call("7")).not.toBe(call);
  });

  it("is aborted by a cancellation naming its id, which releases it", () => {
    const session = new StdioSession();
    const call = session.call(7);
    const other = session.call(8);
    session.observe(cancelled(7));
    expect(call.signal.aborted).toBe(true);
    expect(other.signal.aborted).toBe(false);
    const next = session.call(7);
    expect(next).not.toBe(call);
    expect(next.signal.aborted).toBe(false);
  });

  it("is not aborted by a cancellation naming the same id as a string", () => {
    const session = new StdioSession();
    const call = session.call(7);
    session.observe(cancelled("7"));
    expect(call.signal.aborted).toBe(false);
  });

  it("is forgotten once released: neither a cancellation nor the shutdown reaches it, and the id gets a new one", () => {
    const session = new StdioSession();
    const call = session.call(7);
    session.release(7);
    session.observe(cancelled(7));
    session.abortAll(new Error("stopping"));
    expect(call.signal.aborted).toBe(false);
    expect(session.call(7)).not.toBe(call);
  });

  it("is aborted, with the reason, by abortAll, as is the request's signal", () => {
    const session = new StdioSession();
    const calls = [session.call(1), session.call(2)];
    const scope = session.scope(legacyCall(1));
    const reason = new Error("The server is shutting down.");
    session.abortAll(reason);
    for (const call of calls) {
      expect(call.signal.aborted).toBe(true);
      expect(call.signal.reason).toBe(reason);
    }
    expect(scope.signal.aborted).toBe(true);
  });

  it("is born aborted, with the reason, after abortAll", () => {
    const session = new StdioSession();
    const reason = new Error("The server is shutting down.");
    session.abortAll(reason);
    const call = session.call(9);
    expect(call.signal.aborted).toBe(true);
    expect(call.signal.reason).toBe(reason);
    expect(session.scope(legacyCall(9)).signal.aborted).toBe(true);
  });

  it("adds no listener to the connection's signal per call", () => {
    const session = new StdioSession();
    const { signal } = session.scope(legacyCall());
    for (let id = 0; id < 20; id += 1) session.call(id);
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });
});
