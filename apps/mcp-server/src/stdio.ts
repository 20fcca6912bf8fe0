import { Transform, type TransformCallback } from "node:stream";
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { StdioServerTransport, serveStdio as serveStdioEntry } from "@modelcontextprotocol/server/stdio";
import type { Logger } from "@toolkits/core";
import type { ToolRegistry } from "@toolkits/core/mcp";
import { createServerFor } from "./server.js";

/** How `serveStdio` bounds what it reads and how long it waits when told to stop. */
export interface StdioOptions {
  /**
   * Longest message (one line, without its newline) read from stdin, in bytes; a longer one is
   * answered with a JSON-RPC error, or dropped with a warning, and never held in memory.
   */
  maxMessageBytes: number;
  /**
   * How long requests in flight may still run once stdin closes or a signal arrives, in
   * milliseconds; then tool calls are aborted and the process exits with 0.
   */
  shutdownGraceMs: number;
}

/**
 * The default of `--max-message-bytes`: 10 MiB, the SDK's own limit, so every message accepted
 * before the guard is still accepted.
 */
export const DEFAULT_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/** After aborting, how long aborted calls get to write their answers, in milliseconds. */
const ABORTED_ANSWER_MS = 1_000;
/** How long closing the connection may take before the process exits anyway, in milliseconds. */
const CLOSE_TIMEOUT_MS = 1_000;
/** JSON-RPC's code for a message that is not a valid request. */
const INVALID_REQUEST = -32600;

type RequestId = string | number;

/**
 * Serves over stdin/stdout, for every protocol revision (the client's first message decides),
 * until SIGINT, SIGTERM or stdin closes; then lets the requests in flight answer (a client may close
 * stdin right after its last request) for up to the grace period, aborts the tool calls still
 * running, and exits with 0. Every line passes a size guard before the SDK's transport reads it.
 */
export async function serveStdio(
  registry: ToolRegistry,
  logger: Logger,
  { maxMessageBytes: maxBytes, shutdownGraceMs: graceMs }: StdioOptions,
): Promise<void> {
  const calls = new Set<AbortController>();
  const unanswered = new Unanswered();
  const guard = new LineGuard(maxBytes, (line) => refuse(line, { wire, logger, maxBytes }));
  // The transport reads the guard, which never ends: the SDK's transport would abort the calls in
  // flight when its input ends, and shutdown decides when that happens instead.
  process.stdin.pipe(guard, { end: false });
  // A closed transport cannot answer anything more, so there is nothing to wait for.
  const wire = new TrackingTransport(guard, unanswered, () => shutdown("transport closed", 0));
  const served = serveStdioEntry(() => createServerFor(abortable(registry, calls)), {
    transport: wire,
    onerror: (error) => logger.debug("stdio message refused", { error: error.message }),
  });
  let closing = false;
  const shutdown = (reason: string, waitMs: number) => {
    if (closing) return;
    closing = true;
    void stop({ reason, waitMs, unanswered, calls, served, logger });
  };
  process.once("SIGINT", () => shutdown("SIGINT", graceMs));
  process.once("SIGTERM", () => shutdown("SIGTERM", graceMs));
  // `close` too: a stdin that fails ends without `end`.
  for (const event of ["end", "close"]) process.stdin.once(event, () => shutdown("stdin closed", graceMs));
  logger.info("serving over stdio", { tools: registry.listing.length, max_message_bytes: maxBytes });
}

/** Answers an oversized request with JSON-RPC's invalid-request error naming the limit; logs every one. */
function refuse(
  line: OversizedLine,
  { wire, logger, maxBytes }: { wire: TrackingTransport; logger: Logger; maxBytes: number },
): void {
  logger.warn("stdio message over the size limit dropped", { ...line, limit_bytes: maxBytes });
  if (line.id === undefined) return;
  const message = `Message of ${line.bytes} bytes refused: this server reads at most ${maxBytes} bytes per stdio message.`;
  wire
    .send({ jsonrpc: "2.0", id: line.id, error: { code: INVALID_REQUEST, message, data: { maxBytes } } })
    .catch((error: Error) => logger.debug("stdio answer not written", { error: error.message }));
}

/**
 * Waits up to `waitMs` for the requests in flight to answer, aborts the tool calls still running
 * (giving them ABORTED_ANSWER_MS to answer), closes the connection and exits with 0.
 */
async function stop(state: {
  reason: string;
  waitMs: number;
  unanswered: Unanswered;
  calls: ReadonlySet<AbortController>;
  served: { close(): Promise<void> };
  logger: Logger;
}): Promise<void> {
  const { reason, unanswered, logger } = state;
  // Lines already read reach the transport (and `unanswered`) within this turn of the loop.
  await new Promise((resolve) => setImmediate(resolve));
  logger.info("shutting down", { reason, in_flight: unanswered.size });
  if (!(await unanswered.settled(state.waitMs))) {
    logger.warn("aborting calls still running at shutdown", { reason, in_flight: unanswered.size });
    for (const call of state.calls) call.abort(new Error(`The server is shutting down (${reason}).`));
    await unanswered.settled(ABORTED_ANSWER_MS);
  }
  // Let the last answers reach stdout before the transport closes.
  await new Promise((resolve) => setImmediate(resolve));
  await Promise.race([state.served.close().catch(() => {}), delay(CLOSE_TIMEOUT_MS)]);
  process.exit(0);
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

/** `registry` with every tool call also stopped by a controller in `calls` while it runs. */
function abortable(registry: ToolRegistry, calls: Set<AbortController>): ToolRegistry {
  return {
    ...registry,
    call(name, args, extra) {
      const controller = new AbortController();
      calls.add(controller);
      const signal = AbortSignal.any([extra.signal, controller.signal]);
      return registry.call(name, args, { ...extra, signal }).finally(() => calls.delete(controller));
    },
  };
}

/** Ids of the requests read from stdin and not answered yet, so shutdown knows what is in flight. */
class Unanswered {
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

/** The SDK's stdio transport over the guarded input, telling `unanswered` what is read and written. */
class TrackingTransport extends StdioServerTransport {
  constructor(
    input: LineGuard,
    private readonly unanswered: Unanswered,
    private readonly onClosed: () => void,
  ) {
    // The guard enforces the size limit and passes whole lines only, so the SDK's buffer is
    // emptied by every read; its own limit, which closes the transport on overflow, must not apply.
    super(input, process.stdout, { maxBufferSize: Number.POSITIVE_INFINITY });
  }

  // serveStdio installs its handlers before it starts the transport, as every Transport user does.
  override async start(): Promise<void> {
    const deliver = this.onmessage;
    const closed = this.onclose;
    this.onmessage = (message) => {
      this.unanswered.read(message);
      deliver?.(message);
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
}

/** A line the guard did not pass: its size in bytes, and the id of the request it held, if readable. */
export interface OversizedLine {
  bytes: number;
  id?: RequestId;
}

const NEWLINE = 0x0a;
/** How much of an oversized line's start and end is kept to find its request id, in bytes. */
const HEAD_BYTES = 4_096;
const TAIL_BYTES = 1_024;

/**
 * Splits its input into lines and passes each on whole, holding at most `maxBytes` of a line.
 * A longer line is never buffered: it is counted and skipped up to its newline, keeping only its
 * first and last bytes, and `onOversized` hears of it with the request id read from them. The next
 * line passes as usual.
 */
export class LineGuard extends Transform {
  #held: Buffer[] = [];
  #heldBytes = 0;
  #skipping: { bytes: number; head: Buffer; tail: Buffer } | undefined;

  constructor(
    private readonly maxBytes: number,
    private readonly onOversized: (line: OversizedLine) => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    for (let newline = chunk.indexOf(NEWLINE); newline !== -1; newline = chunk.indexOf(NEWLINE, start)) {
      this.#endLine(chunk, start, newline);
      start = newline + 1;
    }
    this.#take(chunk.subarray(start));
    done();
  }

  /** Ends the current line with `chunk` from `start` to its newline at `newline`. */
  #endLine(chunk: Buffer, start: number, newline: number): void {
    const startsHere = this.#heldBytes === 0;
    this.#take(chunk.subarray(start, newline));
    const skipped = this.#skipping;
    const held = this.#held;
    this.#skipping = undefined;
    this.#held = [];
    this.#heldBytes = 0;
    if (skipped) {
      const id = oversizedRequestId(skipped.head.toString("utf8"), skipped.tail.toString("utf8"));
      this.onOversized(id === undefined ? { bytes: skipped.bytes } : { bytes: skipped.bytes, id });
    } else if (startsHere) {
      // A line wholly inside this chunk passes without a copy.
      this.push(chunk.subarray(start, newline + 1));
    } else {
      this.push(Buffer.concat([...held, chunk.subarray(newline, newline + 1)]));
    }
  }

  /** Adds part of the current line: held while the line fits, else counted and skipped. */
  #take(piece: Buffer): void {
    if (!this.#skipping && this.#heldBytes + piece.length <= this.maxBytes) {
      this.#held.push(piece);
      this.#heldBytes += piece.length;
      return;
    }
    this.#skipping ??= {
      bytes: this.#heldBytes,
      head: firstBytes([...this.#held, piece], HEAD_BYTES),
      tail: lastBytes(this.#held, TAIL_BYTES),
    };
    this.#held = [];
    this.#heldBytes = 0;
    this.#skipping.bytes += piece.length;
    this.#skipping.tail = lastBytes([this.#skipping.tail, piece], TAIL_BYTES);
  }
}

function firstBytes(buffers: readonly Buffer[], count: number): Buffer {
  const kept: Buffer[] = [];
  let length = 0;
  for (const buffer of buffers) {
    if (length >= count) break;
    kept.push(buffer.subarray(0, count - length));
    length += kept.at(-1)?.length ?? 0;
  }
  return Buffer.concat(kept);
}

function lastBytes(buffers: readonly Buffer[], count: number): Buffer {
  const kept: Buffer[] = [];
  let length = 0;
  for (let i = buffers.length - 1; i >= 0 && length < count; i--) {
    const buffer = buffers[i] as Buffer;
    kept.unshift(buffer.subarray(Math.max(0, buffer.length - (count - length))));
    length += kept[0]?.length ?? 0;
  }
  return Buffer.concat(kept);
}

/**
 * The id of the request an oversized line holds, from its first and last bytes: a top-level `id`
 * member read from the start, else one that closes the object at the end (where the SDK's own
 * clients put it). Undefined for a notification, a response (`result` or `error` seen), or when
 * neither end shows an id.
 */
export function oversizedRequestId(head: string, tail: string): RequestId | undefined {
  const members = topLevelMembers(head);
  if (members.has("result") || members.has("error")) return undefined;
  const id = members.get("id") ?? idAtEnd(tail);
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}

const STRING = /"(?:[^"\\]|\\.)*"/y;
const SCALAR = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;
const NESTED_TOKEN = /"(?:[^"\\]|\\.)*"|[{[]|[}\]]|[^"{}[\]]+/y;
const ID_AT_END = /[{,]\s*"id"\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*")\s*\}\s*$/;

/**
 * The members of the JSON object `text` starts with, as far as `text` goes: each name with its
 * value when a string, number, boolean or null, and `undefined` for an object or array (skipped)
 * or a value the text ends inside. Stops where the text ends or stops being JSON.
 */
function topLevelMembers(text: string): Map<string, unknown> {
  const members = new Map<string, unknown>();
  let at = skipSpace(text, 0);
  if (text[at] !== "{") return members;
  at = skipSpace(text, at + 1);
  while (text[at] === '"') {
    const name = match(STRING, text, at);
    if (!name) break;
    at = skipSpace(text, name.end);
    if (text[at] !== ":") break;
    const value = readValue(text, skipSpace(text, at + 1));
    // A member whose value runs past the text still shows what the message is (a `result`).
    members.set(JSON.parse(name.text), value?.value);
    if (!value) break;
    at = skipSpace(text, value.end);
    if (text[at] !== ",") break;
    at = skipSpace(text, at + 1);
  }
  return members;
}

function readValue(text: string, at: number): { value: unknown; end: number } | undefined {
  const found = match(STRING, text, at) ?? match(SCALAR, text, at);
  if (found) return { value: JSON.parse(found.text), end: found.end };
  const end = text[at] === "{" || text[at] === "[" ? skipNested(text, at) : undefined;
  return end === undefined ? undefined : { value: undefined, end };
}

/** The index just past the object or array starting at `at`; undefined if `text` ends first. */
function skipNested(text: string, at: number): number | undefined {
  let depth = 0;
  for (let next = at; ; ) {
    const token = match(NESTED_TOKEN, text, next);
    if (!token) return undefined;
    if (token.text === "{" || token.text === "[") depth++;
    else if (token.text === "}" || token.text === "]") depth--;
    if (depth === 0) return token.end;
    next = token.end;
  }
}

function idAtEnd(tail: string): unknown {
  const found = ID_AT_END.exec(tail)?.[1];
  return found === undefined ? undefined : JSON.parse(found);
}

function match(pattern: RegExp, text: string, at: number): { text: string; end: number } | undefined {
  pattern.lastIndex = at;
  const found = pattern.exec(text);
  return found ? { text: found[0], end: pattern.lastIndex } : undefined;
}

function skipSpace(text: string, at: number): number {
  let next = at;
  while (next < text.length && /\s/.test(text[next] as string)) next++;
  return next;
}
