import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import type { InboundMessage } from "@toolkits/core/mcp";
import type { LineGuard, RequestId } from "./lines.js";

/** What a TrackingTransport tells its owner, and what it asks of it. */
export interface TrackingHooks {
  /** The transport closed: nothing more can be answered. */
  closed(): void;
  /** The request `id` was answered, by the SDK (`message`: its answer) or the fast path. */
  answered(id: RequestId, message?: JSONRPCMessage): void;
  /** Sees every message read first, and hands on to `deliver` what the SDK should serve. */
  intercept(message: JSONRPCMessage, deliver: (message: JSONRPCMessage) => void): void;
}

/**
 * The SDK's stdio transport over the guarded input, telling `unanswered` what is written and its
 * owner what is answered, and offering every message read to `intercept` first.
 */
export class TrackingTransport extends StdioServerTransport {
  constructor(
    input: LineGuard,
    private readonly unanswered: Unanswered,
    private readonly hooks: TrackingHooks,
  ) {
    // The guard enforces the size limit and passes whole lines only, so the SDK's buffer is
    // emptied by every read; its own limit, which closes the transport on overflow, must not apply.
    super(input, process.stdout, { maxBufferSize: Number.POSITIVE_INFINITY });
  }

  // serveStdio installs its handlers before it starts the transport, as every Transport user does.
  override async start(): Promise<void> {
    const deliver = (message: JSONRPCMessage) => sdk?.(message);
    const sdk = this.onmessage;
    const closed = this.onclose;
    this.onmessage = (message) => this.hooks.intercept(message, deliver);
    this.onclose = () => {
      closed?.();
      this.hooks.closed();
    };
    return super.start();
  }

  override send(message: JSONRPCMessage): Promise<void> {
    this.unanswered.written(message);
    const sent = super.send(message);
    // Told once the answer is written, so what its owner does then never holds the answer back.
    if (!("method" in message) && "id" in message && message.id !== undefined)
      this.hooks.answered(message.id, message);
    return sent;
  }

  /** Writes a response already serialized (the fast path's) to the request `id`, as `send` writes one. */
  sendSerialized(line: string, id: RequestId | undefined): Promise<void> {
    if (id !== undefined) {
      this.unanswered.answered(id);
      this.hooks.answered(id);
    }
    return new Promise((resolve) => {
      if (process.stdout.write(`${line}\n`)) resolve();
      else process.stdout.once("drain", resolve);
    });
  }
}

/** Ids of the requests read from stdin and not answered yet, so shutdown knows what is in flight. */
export class Unanswered {
  readonly #ids = new Set<RequestId>();
  readonly #waiters = new Set<() => void>();

  get size(): number {
    return this.#ids.size;
  }

  /** A request read now awaits its answer; a cancellation settles the request it names. */
  read(message: InboundMessage): void {
    if (message.method === undefined) return;
    if (message.id !== undefined) this.#ids.add(message.id);
    else this.#settle(message.cancels);
  }

  /** A response written settles its request. */
  written(message: JSONRPCMessage): void {
    if (!("method" in message) && "id" in message && message.id !== undefined) this.#settle(message.id);
  }

  /** The response to `id` was written. */
  answered(id: RequestId): void {
    this.#settle(id);
  }

  /** Resolves true once every request is answered, false if `ms` milliseconds pass first. */
  settled(ms: number): Promise<boolean> {
    if (!this.#ids.size) return Promise.resolve(true);
    return new Promise((resolve) => {
      const finish = (answered: boolean) => {
        clearTimeout(timer);
        this.#waiters.delete(waiter);
        resolve(answered);
      };
      const waiter = () => finish(true);
      const timer = setTimeout(() => finish(false), ms);
      this.#waiters.add(waiter);
    });
  }

  #settle(id: RequestId | undefined): void {
    if (id === undefined || !this.#ids.delete(id) || this.#ids.size) return;
    for (const waiter of [...this.#waiters]) waiter();
  }
}
