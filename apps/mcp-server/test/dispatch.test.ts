// The dispatcher (src/dispatch.ts) on its own, for what the HTTP table of test/http/fast-path.test.ts
// does not reach: requests other than one tool call, the transport without headers (stdio), the
// connection's era deciding over the message's, and the call scope the fast path hands a tool.
import { defineTool, envHost, READ_ONLY_HINTS, type ToolContext, ToolError } from "@toolkits/core";
import { createToolRegistry, type InboundBody, readInbound } from "@toolkits/core/mcp";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type Answering, type CallHeaders, createDispatcher } from "../src/dispatch.js";
import { type CallController, requestScope, type TransportFacts } from "../src/scope.js";
import { WHOLE } from "../src/views.js";

const PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const ENVELOPE = { [PROTOCOL_VERSION]: "2026-07-28", [CLIENT_CAPABILITIES]: {} };
const INFO = { name: "test-server", version: "1.0.0" };
/** W3C trace context as a client puts it in `_meta` (SEP-414). */
const TRACE = {
  traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
  tracestate: "rojo=00f067aa0ba902b7",
  baggage: "k=v",
};

/** What the last call of a tool here was given. */
let seen: ToolContext | undefined;
const NOTHING = z.object({});

/** A tool noting what it was given, then answering nothing or, when it `fails`, a tool error. */
const noting = (name: string, fails: boolean) =>
  defineTool({
    name,
    title: name,
    description: fails ? "Fails, noting what it was given." : "Notes what it was given.",
    hints: READ_ONLY_HINTS,
    auth: {},
    input: NOTHING,
    output: NOTHING,
    handler: async (_input, context) => {
      seen = context;
      if (fails) throw new ToolError("upstream_error", "It failed.");
      return {};
    },
  });
const registry = createToolRegistry([noting("Test.Seen", false), noting("Test.Fail", true)], envHost({}));
const dispatcher = createDispatcher(() => registry, INFO);

const call = (name: string, meta?: object, id: number | string = 7) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: {}, ...(meta && { _meta: meta }) },
});

/** How a request was answered: by the SDK, or the fast path's JSON-RPC response. */
type Way = { sdk: true } | { reply: Record<string, unknown> };
const answering: Answering<Way> = {
  sdk: async () => ({ sdk: true }),
  reply: (response) => ({ reply: JSON.parse(response) as Record<string, unknown> }),
};

/** Dispatches `raw` with the scope its transport's `facts` make, without headers (stdio) unless given. */
function dispatch(raw: unknown, facts: Partial<TransportFacts> = {}, headers?: CallHeaders): Promise<Way> {
  const inbound: InboundBody = readInbound(raw, registry.names);
  const scope = requestScope(inbound.single, {
    caller: { key: "k", principal: "test#alice" },
    signal: () => new AbortController().signal,
    initialized: { known: undefined },
    view: WHOLE,
    apps: false,
    ...facts,
  });
  return dispatcher.dispatch(inbound, scope, answering, headers);
}

describe("dispatch: what goes to the SDK", () => {
  it.each([
    ["a batch, even of one plain call", [call("Test_Seen")]],
    ["tools/list", { jsonrpc: "2.0", id: 7, method: "tools/list" }],
    [
      "initialize",
      { jsonrpc: "2.0", id: 7, method: "initialize", params: { protocolVersion: "2025-11-25" } },
    ],
    ["a notification", { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7 } }],
    ["a response", { jsonrpc: "2.0", id: 7, result: {} }],
    ["a tools/call notification (no id)", { ...call("Test_Seen"), id: undefined }],
    ["a call not saying JSON-RPC 2.0", { ...call("Test_Seen"), jsonrpc: "1.0" }],
    ["not a message at all", "tools/call"],
  ])("%s", async (_case, raw) => {
    expect(await dispatch(raw)).toEqual({ sdk: true });
  });

  it("a call carrying an envelope, on a connection whose first message made it legacy", async () => {
    expect(await dispatch(call("Test_Seen", ENVELOPE), { era: "legacy" })).toEqual({ sdk: true });
  });

  it("a 2025 call whose _meta holds more than trace context (a progress token, anything else)", async () => {
    expect(await dispatch(call("Test_Seen", { ...TRACE, progressToken: "p" }))).toEqual({ sdk: true });
    expect(await dispatch(call("Test_Seen", { traceparent: TRACE.traceparent, "x.example/k": 1 }))).toEqual({
      sdk: true,
    });
  });

  it("a modern call asking for progress, or retrying", async () => {
    expect(await dispatch(call("Test_Seen", { ...ENVELOPE, progressToken: "p" }))).toEqual({ sdk: true });
    const retry = {
      ...call("Test_Seen", ENVELOPE),
      params: { name: "Test_Seen", requestState: "s", _meta: ENVELOPE },
    };
    expect(await dispatch(retry)).toEqual({ sdk: true });
  });
});

describe("dispatch: a plain call without headers (stdio), answered from the registry", () => {
  it("2025: the result as the registry answers it", async () => {
    expect(await dispatch(call("Test_Seen"))).toEqual({
      reply: {
        jsonrpc: "2.0",
        id: 7,
        result: { content: [{ type: "text", text: "{}" }], structuredContent: {} },
      },
    });
  });

  it("2026-07-28: stamped complete, naming the server", async () => {
    const way = await dispatch(call("Test.Seen", ENVELOPE, "s-1"));
    expect(way).toEqual({
      reply: {
        jsonrpc: "2.0",
        id: "s-1",
        result: {
          content: [{ type: "text", text: "{}" }],
          structuredContent: {},
          resultType: "complete",
          _meta: { "io.modelcontextprotocol/serverInfo": INFO },
        },
      },
    });
  });

  it("2025, with trace context in _meta (SEP-414) and nothing else: the same answer", async () => {
    expect(await dispatch(call("Test_Seen", TRACE))).toEqual(await dispatch(call("Test_Seen")));
    expect(await dispatch(call("Test_Seen", { traceparent: TRACE.traceparent }))).toMatchObject({
      reply: {},
    });
  });

  it("tells the transport a tool error or a JSON-RPC error as the failure, a success as none", async () => {
    const failures: unknown[] = [];
    const noting: Answering<unknown> = {
      sdk: async () => undefined,
      reply: (_text, failure) => failures.push(failure),
    };
    for (const name of ["Test_Seen", "Test_Fail"]) {
      const inbound = readInbound(call(name), registry.names);
      const scope = requestScope(inbound.single, {
        caller: { key: "k" },
        signal: () => new AbortController().signal,
        initialized: { known: undefined },
        view: WHOLE,
        apps: false,
      });
      await dispatcher.dispatch(inbound, scope, noting);
    }
    expect(failures).toEqual([undefined, { errorType: "tool_error" }]);
  });

  it("on a modern connection, a modern call, whatever came before", async () => {
    expect(await dispatch(call("Test_Seen", ENVELOPE), { era: "modern" })).toMatchObject({
      reply: { result: { resultType: "complete" } },
    });
  });
});

describe("dispatch: the call scope the fast path hands a tool", () => {
  /** A transport keeping `own` as call 7's controller. */
  const owning = (own: CallController): Partial<TransportFacts> => ({
    call: (id) => (id === 7 ? own : undefined),
  });

  it("is the transport's own controller for the call, which a call that succeeds leaves alone", async () => {
    const own = new AbortController();
    await dispatch(call("Test_Seen"), owning(own));
    expect(seen?.signal).toBe(own.signal);
    expect(own.signal.aborted).toBe(false);
  });

  it("a failing call aborts the call's own controller, once answered", async () => {
    const own = new AbortController();
    const way = await dispatch(call("Test_Fail"), owning(own));
    expect(way).toMatchObject({ reply: { result: { isError: true } } });
    expect(seen?.signal).toBe(own.signal);
    expect(own.signal.aborted).toBe(true);
  });

  it("without a controller of the transport's, is the request's signal, which a failure leaves alone", async () => {
    const request = new AbortController();
    await dispatch(call("Test_Fail"), { signal: () => request.signal });
    expect(seen?.signal.aborted).toBe(true);
    expect(request.signal.aborted).toBe(false);
  });
});
