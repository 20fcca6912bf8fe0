import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import type { LineGuard, RequestId } from "./lines.js";

/**
 * The SDK's stdio transport over the guarded input, telling `unanswered` what is read and written,
 * and offering every message read to `intercept` first (which hands on to `deliver` what the SDK
 * should serve).
 */
export class TrackingTransport extends StdioServerTransport {
  constructor(
    input: LineGuard,
    private readonly unanswered: Unanswered,
    private readonly onClosed: () => void,
    private readonly intercept: (message: JSONRPCMessage, deliver: (message: JSONRPCMessage) => void) => void,
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
    this.onmessage = (message) => {
      this.unanswered.read(message);
      this.intercept(message, deliver);
    };
    this.onclose = () => {
      closed?.();
      this.onClosed();
    };
    return super.start();
  }

  override send(message: JSONRPCMessage): Promise<void> {
    this.unanswered.written(message);
    return super.send(message);
  }

  /** Writes a response already serialized (the fast path's) to the request `id`, as `send` writes one. */
  sendSerialized(line: string, id: RequestId | undefined): Promise<void> {
    if (id !== undefined) this.unanswered.answered(id);
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
  read(message: JSONRPCMessage): void {
    if (!("method" in message)) return;
    if ("id" in message) this.#ids.add(message.id);
    else if (message.method === "notifications/cancelled") {
      this.#settle((message.params as { requestId?: RequestId } | undefined)?.requestId);
    }
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
