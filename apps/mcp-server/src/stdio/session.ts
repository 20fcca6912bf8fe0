import type { ClientCapabilities } from "@modelcontextprotocol/server";
import type { Era, InboundMessage, MessageId } from "@toolkits/core/mcp";
import { ANONYMOUS, type RequestScope, requestScope } from "../scope.js";
import { WHOLE } from "../views.js";

/**
 * One stdio connection as the scopes of its requests need it: its era (its first message decides,
 * as it does for the SDK), what its client declared at `initialize`, a signal that stops every call
 * at shutdown, and each tool call's own controller by id, so a `notifications/cancelled` reaches
 * it on either path.
 */
export class StdioSession {
  #era: Era | undefined;
  #capabilities: ClientCapabilities | undefined;
  #revision: string | undefined;
  readonly #stopping = new AbortController();
  readonly #calls = new Map<MessageId, AbortController>();

  /** `apps`: `--apps on`, MCP Apps views for a client that takes them. */
  constructor(private readonly apps = false) {}

  /** Learns from each message read: the era, the client's capabilities, cancellations. */
  observe(message: InboundMessage): void {
    if (message.method === undefined) return;
    this.#era ??= message.era;
    if (message.method === "initialize") {
      this.#capabilities = message.capabilities;
      this.#revision = message.revision;
    }
    if (message.cancels !== undefined) {
      this.#calls.get(message.cancels)?.abort();
      this.release(message.cancels);
    }
  }

  /** The revision the client asked for at `initialize` (the one a 2025 connection speaks), if it has. */
  get revision(): string | undefined {
    return this.#revision;
  }

  /**
   * The scope of a request read now, from the one scope builder: over stdio the server's own
   * flags are the whole selection, and what the client declared at `initialize` is known.
   */
  scope(message: InboundMessage, within?: RequestScope["within"]): RequestScope {
    return requestScope(message, {
      within,
      caller: ANONYMOUS,
      signal: () => this.#stopping.signal,
      call: (id) => this.call(id),
      era: this.#era,
      initialized: { known: this.#capabilities },
      view: WHOLE,
      apps: this.apps,
    });
  }

  /**
   * The tool call `id`'s own controller (one per id, on either path), aborted by its cancellation
   * and at shutdown; forgotten once answered (`release`).
   */
  call(id: MessageId): AbortController {
    let call = this.#calls.get(id);
    if (call) return call;
    // Aborted by `abortAll` itself rather than by following `#stopping`: no listener per call.
    call = new AbortController();
    if (this.#stopping.signal.aborted) call.abort(this.#stopping.signal.reason);
    this.#calls.set(id, call);
    return call;
  }

  /** The request `id` was answered (or cancelled): its call's controller is no longer needed. */
  release(id: MessageId): void {
    this.#calls.delete(id);
  }

  /** Aborts every call still running, with `reason`. */
  abortAll(reason: Error): void {
    this.#stopping.abort(reason);
    for (const call of this.#calls.values()) call.abort(reason);
  }
}
