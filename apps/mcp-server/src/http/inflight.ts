import type { ServerResponse } from "node:http";
import type { InboundBody, MessageId } from "@toolkits/core/mcp";
import { rpcError } from "./respond.js";

/**
 * Tool calls in flight over HTTP, by caller and JSON-RPC id. A 2025 client cancels with a
 * `notifications/cancelled` POST, which a stateless server receives apart from the call it names;
 * this is how that POST reaches the call.
 */
export class CallsInFlight {
  private readonly calls = new Map<string, Set<AbortController>>();

  /**
   * Registers the tool calls of one exchange (`ids`, from its body) for `caller`. Resolves each id
   * to its own controller, which the exchange's end and a cancellation abort; `close` forgets them
   * once the exchange is over.
   */
  open(
    caller: string,
    ids: readonly MessageId[],
    exchange: Exchange,
  ): { call(id: MessageId): AbortController | undefined; close(): void } {
    const opened = new Map<MessageId, AbortController>();
    for (const id of ids) {
      const call = exchange.call();
      opened.set(id, call);
      const key = callKey(caller, id);
      const set = this.calls.get(key) ?? new Set();
      this.calls.set(key, set.add(call));
    }
    return {
      call: (id) => opened.get(id),
      close: () => {
        for (const [id, call] of opened) {
          const key = callKey(caller, id);
          const set = this.calls.get(key);
          set?.delete(call);
          if (!set?.size) this.calls.delete(key);
        }
      },
    };
  }

  /** Aborts the calls of `caller` that the body's `notifications/cancelled` messages name. */
  cancel(caller: string, inbound: InboundBody): void {
    for (const { cancels } of inbound.messages)
      if (cancels !== undefined)
        for (const call of this.calls.get(callKey(caller, cancels)) ?? []) call.abort();
  }
}

/** A call's key among everyone's: 1 and "1" are different JSON-RPC ids. */
const callKey = (caller: string, id: MessageId): string => `${caller} ${typeof id} ${id}`;

/** The ids of the tool calls in a body (one request or a batch). */
export const callIds = (inbound: InboundBody): MessageId[] =>
  inbound.messages.flatMap(({ method, id }) => (method === "tools/call" && id !== undefined ? [id] : []));

/**
 * Opens the exchanges of one endpoint, each ending after `timeoutMs` (see `Exchange`). They share
 * one listener on `graceOver`, which ends those still open when a shutdown's grace is over: a
 * listener each would pass Node's limit of 10 per signal with more than 10 requests at once, and
 * Node's warning about it is not a JSON log line.
 */
export function exchanges(timeoutMs: number, graceOver: AbortSignal): (res: ServerResponse) => Exchange {
  const open = new Set<Exchange>();
  const shutDown = (exchange: Exchange) =>
    exchange.stop(503, "The server shut down before the request finished.");
  graceOver.addEventListener("abort", () => open.forEach(shutDown), { once: true });
  return (res) => {
    const exchange = new Exchange(res, timeoutMs);
    if (graceOver.aborted) shutDown(exchange);
    else {
      open.add(exchange);
      res.once("close", () => open.delete(exchange));
    }
    return exchange;
  };
}

/**
 * One HTTP exchange, which ends when the client goes away before the answer, when the request
 * takes longer than `timeoutMs` (then answered 504), or when `stop` ends it (a shutdown's grace
 * over), so its calls and their upstream requests stop. The end aborts each call's controller
 * directly, and the exchange's own signal only once something asked for it (the SDK's path): a
 * fast-path call then makes one signal, not three (each costs microseconds on Node 20).
 */
export class Exchange {
  #controller: AbortController | undefined;
  readonly #calls: AbortController[] = [];
  #ended = false;
  readonly #res: ServerResponse;

  constructor(res: ServerResponse, timeoutMs: number) {
    this.#res = res;
    const timer = setTimeout(
      () => this.stop(504, `The request took longer than ${timeoutMs} ms.`),
      timeoutMs,
    );
    res.once("close", () => {
      clearTimeout(timer);
      if (!res.writableFinished) this.#end();
    });
  }

  /** Aborted when the exchange ends. */
  get signal(): AbortSignal {
    this.#controller ??= new AbortController();
    if (this.#ended) this.#controller.abort();
    return this.#controller.signal;
  }

  /** A controller for one of its calls, aborted when it ends. */
  call(): AbortController {
    const call = new AbortController();
    if (this.#ended) call.abort();
    else this.#calls.push(call);
    return call;
  }

  /**
   * Ends it now: answered `status` (an HTTP status) with a JSON-RPC error saying `message` when
   * nothing was sent yet, else cut off.
   */
  stop(status: number, message: string): void {
    if (!this.#res.headersSent) rpcError(this.#res, status, message);
    else this.#res.destroy();
    this.#end();
  }

  #end(): void {
    this.#ended = true;
    this.#controller?.abort();
    for (const call of this.#calls) call.abort();
  }
}
