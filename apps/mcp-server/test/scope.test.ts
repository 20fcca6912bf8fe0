// The one scope builder (src/scope.ts): a request's era, its URL-elicitation form and MCP Apps
// view from the message and what its transport knows; core's call scope; and the carriers that
// hand a scope to the SDK's handlers.
import type { AuthInfo, ClientCapabilities } from "@modelcontextprotocol/server";
import { UI_EXTENSION, VIEW_MIME_TYPE } from "@toolkits/apps";
import { CONNECT_INPUT, readMessage } from "@toolkits/core/mcp";
import { describe, expect, it, vi } from "vitest";
import {
  ANONYMOUS,
  type CallController,
  callScope,
  carriedScope,
  carryScope,
  type RequestScope,
  requestScope,
  scopeOfAuth,
  type TransportFacts,
  withScope,
} from "../src/scope.js";
import { type View, WHOLE } from "../src/views.js";

const PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const URL_ELICITATION = { elicitation: { url: {} } };
const RENDERS_VIEWS = { extensions: { [UI_EXTENSION]: { mimeTypes: [VIEW_MIME_TYPE] } } };

/** A tools/call as a 2025 client sends it: no envelope. */
const legacyCall = (params: Record<string, unknown> = {}) =>
  readMessage({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "x", ...params } });
/** A tools/call as a 2026-07-28 client sends it, declaring `capabilities` (none: the key left out). */
const modernCall = (capabilities?: object, params: Record<string, unknown> = {}) =>
  readMessage({
    jsonrpc: "2.0",
    id: 7,
    method: "tools/call",
    params: {
      name: "x",
      ...params,
      _meta: {
        [PROTOCOL_VERSION]: "2026-07-28",
        ...(capabilities && { [CLIENT_CAPABILITIES]: capabilities }),
      },
    },
  });

/** What a transport knows, with `overrides`: by default stateless (recalling nothing), apps on. */
const facts = (overrides: Partial<TransportFacts> = {}): TransportFacts => ({
  caller: ANONYMOUS,
  signal: () => new AbortController().signal,
  initialized: { recall: async () => undefined },
  view: WHOLE,
  apps: true,
  ...overrides,
});
const known = (capabilities: object | undefined): Partial<TransportFacts> => ({
  initialized: { known: capabilities as ClientCapabilities | undefined },
});

describe("requestScope: the era", () => {
  it.each([
    ["a modern message", modernCall(), "modern"],
    ["a legacy message", legacyCall(), "legacy"],
    ["a batch (no one message)", undefined, "legacy"],
  ] as const)("of %s, on no connection, is the message's", (_case, message, era) => {
    expect(requestScope(message, facts()).era).toBe(era);
  });

  it.each([
    ["legacy", modernCall()],
    ["modern", legacyCall()],
  ] as const)("on a %s connection is the connection's, whatever the message says", (era, message) => {
    expect(requestScope(message, facts({ era })).era).toBe(era);
  });

  it("keeps the caller the transport decided", () => {
    const caller = { key: "k", principal: "iss#sub", clientId: "c" };
    expect(requestScope(legacyCall(), facts({ caller })).caller).toBe(caller);
  });
});

describe("requestScope: URL elicitation", () => {
  it("takes the form of the connection's era, not the message's", () => {
    // A 2026 envelope on a legacy connection: the 2025 form, from what initialize declared.
    const onLegacy = requestScope(
      modernCall(URL_ELICITATION),
      facts({ era: "legacy", ...known(URL_ELICITATION) }),
    );
    expect(onLegacy.urlElicitation()).toBe("error");
    // No envelope on a modern connection: nothing to go by, so no elicitation at all.
    expect(
      requestScope(legacyCall(), facts({ era: "modern", ...known(URL_ELICITATION) })).urlElicitation(),
    ).toBeUndefined();
  });

  it("a modern client's is its envelope's", () => {
    expect(requestScope(modernCall(URL_ELICITATION), facts()).urlElicitation()).toBe("input_required");
    expect(requestScope(modernCall({}), facts()).urlElicitation()).toBeUndefined();
  });

  it("a modern retry answering the connect request is not asked again", () => {
    const retry = modernCall(URL_ELICITATION, { inputResponses: { [CONNECT_INPUT]: { action: "accept" } } });
    expect(requestScope(retry, facts()).urlElicitation()).toBeUndefined();
  });

  it("a modern client's never asks what a legacy initialize declared", () => {
    const recall = vi.fn(async () => URL_ELICITATION);
    expect(requestScope(modernCall({}), facts({ initialized: { recall } })).urlElicitation()).toBeUndefined();
    expect(recall).not.toHaveBeenCalled();
  });

  it.each([
    ["declared URL elicitation", URL_ELICITATION, "error"],
    ["declared none", {}, undefined],
    ["never initialized", undefined, undefined],
  ] as const)("a legacy client known to have %s at initialize: %s", (_case, capabilities, form) => {
    expect(requestScope(legacyCall(), facts(known(capabilities))).urlElicitation()).toBe(form);
  });

  it("a legacy client's, where only something else remembers it, is recalled only when asked", async () => {
    const recall = vi.fn(async () => URL_ELICITATION);
    const scope = requestScope(legacyCall(), facts({ initialized: { recall } }));
    expect(recall).not.toHaveBeenCalled();
    await expect(scope.urlElicitation()).resolves.toBe("error");
    expect(recall).toHaveBeenCalledTimes(1);
  });

  it("a legacy client recalled as declaring none takes none", async () => {
    const scope = requestScope(legacyCall(), facts({ initialized: { recall: async () => ({}) } }));
    await expect(scope.urlElicitation()).resolves.toBeUndefined();
  });

  it("a batch takes none, and recalls nothing", () => {
    const recall = vi.fn(async () => URL_ELICITATION);
    expect(requestScope(undefined, facts({ initialized: { recall } })).urlElicitation()).toBeUndefined();
    expect(recall).not.toHaveBeenCalled();
  });
});

describe("requestScope: the MCP Apps view", () => {
  const appsOf = (message: Parameters<typeof requestScope>[0], overrides: Partial<TransportFacts> = {}) =>
    requestScope(message, facts(overrides)).view.apps;

  it.each([
    ["with our MIME type", RENDERS_VIEWS, "declared"],
    ["with no MIME type", { extensions: { [UI_EXTENSION]: {} } }, "declared"],
    [
      "with our MIME type among others",
      { extensions: { [UI_EXTENSION]: { mimeTypes: ["x/y", VIEW_MIME_TYPE] } } },
      "declared",
    ],
    [
      "with another MIME type only",
      { extensions: { [UI_EXTENSION]: { mimeTypes: ["text/html"] } } },
      undefined,
    ],
    ["capabilities without the extension", URL_ELICITATION, undefined],
    ["empty capabilities", {}, undefined],
  ] as const)("a modern client declaring the extension %s: %s", (_case, capabilities, apps) => {
    expect(appsOf(modernCall(capabilities))).toBe(apps);
  });

  it.each([
    ["with our MIME type", RENDERS_VIEWS, "declared"],
    [
      "with another MIME type only",
      { extensions: { [UI_EXTENSION]: { mimeTypes: ["text/html"] } } },
      undefined,
    ],
    ["capabilities without the extension", URL_ELICITATION, undefined],
    ["nothing (never initialized)", undefined, undefined],
  ] as const)("a legacy client known to have declared %s: %s", (_case, capabilities, apps) => {
    expect(appsOf(legacyCall(), known(capabilities))).toBe(apps);
  });

  it("is unknown for a stateless legacy request, whose initialize went elsewhere, without recalling it", () => {
    const recall = vi.fn(async () => RENDERS_VIEWS);
    expect(appsOf(legacyCall(), { initialized: { recall } })).toBe("unknown");
    expect(appsOf(undefined, { initialized: { recall } })).toBe("unknown");
    expect(recall).not.toHaveBeenCalled();
  });

  it("is unknown for a modern request declaring no capabilities", () => {
    expect(appsOf(modernCall())).toBe("unknown");
  });

  it("on a modern connection, is each message's envelope's, not initialize's", () => {
    expect(appsOf(modernCall(RENDERS_VIEWS), { era: "modern", ...known(undefined) })).toBe("declared");
    expect(appsOf(modernCall({}), { era: "modern", ...known(RENDERS_VIEWS) })).toBeUndefined();
  });

  it("is none with --apps off, whatever the client declared", () => {
    expect(appsOf(modernCall(RENDERS_VIEWS), { apps: false })).toBeUndefined();
    expect(appsOf(legacyCall(), { apps: false })).toBeUndefined();
  });

  it("narrows the transport's view, keeping what it admits", () => {
    const tool = (name: string) => ({ name }) as Parameters<View["admits"]>[0];
    const pagerOnly: View = { id: "test:pager", admits: (t) => t.name.startsWith("Pager.") };
    const view = requestScope(modernCall(RENDERS_VIEWS), facts({ view: pagerOnly })).view;
    expect(view.apps).toBe("declared");
    expect(view.admits(tool("Pager.WhoAmI"))).toBe(true);
    expect(view.admits(tool("Sheets.WhoAmI"))).toBe(false);
    expect(requestScope(modernCall({}), facts({ view: pagerOnly })).view).toBe(pagerOnly);
  });
});

describe("requestScope: the signal and calls", () => {
  it("makes the request's signal only when read", () => {
    const signal = vi.fn(() => new AbortController().signal);
    const scope = requestScope(legacyCall(), facts({ signal }));
    expect(signal).not.toHaveBeenCalled();
    expect(scope.signal).toBeInstanceOf(AbortSignal);
    expect(signal).toHaveBeenCalledTimes(1);
  });

  it("resolves a call's controller by the transport, when it has them", () => {
    const controller = new AbortController();
    expect(
      requestScope(legacyCall(), facts({ call: (id) => (id === 7 ? controller : undefined) })).call(7),
    ).toBe(controller);
    expect(requestScope(legacyCall(), facts()).call(7)).toBeUndefined();
  });
});

describe("callScope", () => {
  /** A request scope whose transport made `own` for call 7 and whose request signal is `request`'s. */
  const scopeWith = (own: CallController | undefined, request = new AbortController()) => {
    const signal = vi.fn(() => request.signal);
    const scope = requestScope(
      legacyCall(),
      facts({
        caller: { key: "k", principal: "iss#sub" },
        signal,
        call: (id) => (id === 7 ? own : undefined),
      }),
    );
    return { scope, signal };
  };

  it("uses the transport's own controller for the call, without making the request's signal", () => {
    const own = new AbortController();
    const { scope, signal } = scopeWith(own);
    const call = callScope(scope, { id: 7 });
    expect(call.signal).toBe(own.signal);
    expect(signal).not.toHaveBeenCalled();
  });

  it("offers abort exactly when the call has its own controller, aborting that controller", () => {
    const own = new AbortController();
    const call = callScope(scopeWith(own).scope, { id: 7 });
    expect(call.abort).toBeTypeOf("function");
    const reason = new Error("answered");
    call.abort?.(reason);
    expect(own.signal.aborted).toBe(true);
    expect(own.signal.reason).toBe(reason);
    expect(call.signal.aborted).toBe(true);
  });

  it.each([
    ["the transport keeps no controllers", undefined, 7],
    ["the call has no id", new AbortController(), undefined],
    ["the transport has none for the id", new AbortController(), 8],
  ])("uses the request's signal and offers no abort when %s", (_case, own, id) => {
    const request = new AbortController();
    const call = callScope(scopeWith(own, request).scope, { id });
    expect(call.signal).toBe(request.signal);
    expect(call.abort).toBeUndefined();
  });

  it.each([
    ["the SDK's signal", "sdk"],
    ["its own controller", "own"],
  ] as const)("served by the SDK, the call's signal follows both: aborting %s aborts it", (_case, which) => {
    const own = new AbortController();
    const sdk = new AbortController();
    const call = callScope(scopeWith(own).scope, { id: 7, signal: sdk.signal });
    expect(call.signal.aborted).toBe(false);
    const reason = new Error(which);
    (which === "sdk" ? sdk : own).abort(reason);
    expect(call.signal.aborted).toBe(true);
    expect(call.signal.reason).toBe(reason);
  });

  it("served by the SDK with no controller of its own, the call's signal follows the request's and the SDK's", () => {
    const request = new AbortController();
    const sdk = new AbortController();
    const call = callScope(scopeWith(undefined, request).scope, { id: 7, signal: sdk.signal });
    expect(call.abort).toBeUndefined();
    request.abort();
    expect(call.signal.aborted).toBe(true);
    const other = callScope(scopeWith(undefined).scope, { id: 7, signal: sdk.signal });
    sdk.abort();
    expect(other.signal.aborted).toBe(true);
  });

  it("carries the id, the caller's principal, the request's URL-elicitation form and the progress sink", () => {
    const { scope } = scopeWith(new AbortController());
    const progress = vi.fn();
    const call = callScope(scope, { id: 7, progress });
    expect(call).toMatchObject({ requestId: 7, principal: "iss#sub", progress });
    expect(call.urlElicitation).toBe(scope.urlElicitation);
  });
});

describe("the scope's carriers to the SDK's handlers", () => {
  const scope: RequestScope = requestScope(legacyCall(), facts());
  const other: RequestScope = requestScope(modernCall(), facts());
  /** The key the scope rides under, as a carrier writes it. */
  const keyOf = (): string => {
    const message: { params?: { _meta?: object } } = {};
    carryScope(message, scope);
    const [key] = Object.keys(message.params?._meta ?? {});
    if (!key) throw new Error("carryScope wrote no key");
    return key;
  };

  it("withScope makes anonymous facts carrying the scope", () => {
    const authInfo = withScope(undefined, scope);
    expect(authInfo).toMatchObject({ token: "", clientId: "", scopes: [] });
    expect(scopeOfAuth(authInfo)).toBe(scope);
  });

  it("withScope keeps every fact of a real AuthInfo, its extra included, and leaves it unchanged", () => {
    const real: AuthInfo = {
      token: "t",
      clientId: "client",
      scopes: ["pager:read"],
      expiresAt: 1_900_000_000,
      resource: new URL("https://mcp.example/mcp"),
      extra: { principal: "iss#sub" },
    };
    const authInfo = withScope(real, scope);
    expect(authInfo).toMatchObject({ ...real, extra: { principal: "iss#sub" } });
    expect(scopeOfAuth(authInfo)).toBe(scope);
    expect(real.extra).toEqual({ principal: "iss#sub" });
  });

  it("carriedScope finds withScope's scope in the HTTP authentication facts", () => {
    const ctx = { http: { authInfo: withScope(undefined, scope) }, mcpReq: { _meta: undefined } };
    expect(carriedScope(ctx as never)).toBe(scope);
  });

  it("over HTTP, a scope a client writes in its _meta is never read", () => {
    const ctx = { http: { authInfo: withScope(undefined, scope) }, mcpReq: { _meta: { [keyOf()]: other } } };
    expect(carriedScope(ctx as never)).toBe(scope);
  });

  it("carryScope and carriedScope round-trip a scope through the request's own _meta (stdio)", () => {
    const message = { jsonrpc: "2.0", id: 1, method: "tools/list" } as { params?: { _meta?: object } };
    carryScope(message, scope);
    expect(carriedScope({ mcpReq: { _meta: message.params?._meta } } as never)).toBe(scope);
  });

  it("carryScope replaces what the client sent under its key, keeping the rest of _meta", () => {
    const message = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: { _meta: { [keyOf()]: other, k: 1 } },
    };
    carryScope(message, scope);
    expect(carriedScope({ mcpReq: { _meta: message.params._meta } } as never)).toBe(scope);
    expect(message.params._meta).toMatchObject({ k: 1 });
  });

  it.each([
    ["no _meta", { mcpReq: {} }],
    ["a _meta without it", { mcpReq: { _meta: { progressToken: 1 } } }],
    ["HTTP facts without it", { http: { authInfo: { token: "", clientId: "", scopes: [] } }, mcpReq: {} }],
  ])("carriedScope throws for a request with %s", (_case, ctx) => {
    expect(() => carriedScope(ctx as never)).toThrow(/without its scope/);
  });

  it("scopeOfAuth throws for facts without a scope", () => {
    expect(() => scopeOfAuth(undefined)).toThrow(/without its scope/);
    expect(() => scopeOfAuth({ token: "t", clientId: "c", scopes: [] })).toThrow(/without its scope/);
  });
});
