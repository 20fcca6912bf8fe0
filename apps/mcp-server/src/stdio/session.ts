import type { ClientCapabilities, JSONRPCMessage } from "@modelcontextprotocol/server";
import type { McpCallScope } from "@toolkits/core/mcp";
import {
  ANONYMOUS,
  appsOf,
  callScopeOf,
  type Era,
  elicitationOf,
  envelopeRevision,
  eraOf,
  type RequestScope,
} from "../scope.js";
import { appsView, type View, WHOLE } from "../views.js";
import type { RequestId } from "./lines.js";

/**
 * One stdio connection as the scopes of its requests need it: its era (its first message decides,
 * as it does for the SDK), what its client declared at `initialize`, a signal that stops every call
 * at shutdown, and the fast path's calls by id, so a `notifications/cancelled` reaches them.
 */
export class StdioSession {
  #era: Era | undefined;
  #revision: string | undefined;
  #capabilities: ClientCapabilities | undefined;
  readonly #stopping = new AbortController();
  readonly #calls = new Map<RequestId, AbortController>();
  readonly #sdkBound = new Map<RequestId, RequestScope>();

  /** `apps`: `--apps on`, MCP Apps views for a client that takes them. */
  constructor(private readonly apps = false) {}

  /** Learns from each message read: the era, the client's capabilities, cancellations. */
  observe(message: JSONRPCMessage): void {
    if (!("method" in message)) return;
    const params = message.params as Record<string, unknown> | undefined;
    if (this.#era === undefined) {
      this.#era = eraOf(params);
      this.#revision = envelopeRevision(params) ?? (params?.protocolVersion as string | undefined);
    }
    if (message.method === "initialize") this.#capabilities = params?.capabilities as ClientCapabilities;
    if (message.method === "notifications/cancelled")
      this.#calls.get(params?.requestId as RequestId)?.abort();
  }

  /** The scope of a request read now; a tool call the SDK will serve finds it again in `sdkScope`. */
  scope(message: JSONRPCMessage): RequestScope {
    const params = "params" in message ? message.params : undefined;
    const era = this.#era ?? "legacy";
    const scope: RequestScope = {
      caller: ANONYMOUS,
      era,
      revision: this.#revision,
      signal: this.#stopping.signal,
      urlElicitation: elicitationOf(era, params, () => this.#capabilities),
      view: this.view(params),
    };
    if ("id" in message && "method" in message && message.method === "tools/call")
      this.#sdkBound.set(message.id, scope);
    return scope;
  }

  /**
   * The view of a request with `params`: over stdio the server's own flags are the whole selection,
   * and whether the client takes MCP Apps views is known (its envelope, or its `initialize`).
   */
  view(params: unknown): View {
    if (!this.apps) return WHOLE;
    return appsView(appsOf(this.#era ?? "legacy", params, this.#capabilities, true));
  }

  /** The scope of a tool call the SDK hands over, with its own signal and progress sink. */
  sdkScope(id: RequestId, call: Pick<McpCallScope, "signal" | "progress">): McpCallScope {
    const scope = this.#sdkBound.get(id) ?? this.scope({ jsonrpc: "2.0", id, method: "tools/call" });
    this.#sdkBound.delete(id);
    return callScopeOf(scope, { id, ...call });
  }

  /**
   * A fast-path call's own controller, aborted by its cancellation and at shutdown; `release` once
   * it is answered.
   */
  call(id: RequestId): AbortController {
    this.#sdkBound.delete(id);
    // Aborted by `abortAll` itself rather than by following `#stopping`: no listener per call.
    const call = new AbortController();
    if (this.#stopping.signal.aborted) call.abort(this.#stopping.signal.reason);
    this.#calls.set(id, call);
    return call;
  }

  release(id: RequestId): void {
    this.#calls.delete(id);
  }

  /** Aborts every call still running, with `reason`. */
  abortAll(reason: Error): void {
    this.#stopping.abort(reason);
    for (const call of this.#calls.values()) call.abort(reason);
  }
}
