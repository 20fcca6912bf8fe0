import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { serveStdio as serveStdioEntry } from "@modelcontextprotocol/server/stdio";
import type { Logger } from "@toolkits/core";
import { type MessageId, readInbound, type ToolRegistry } from "@toolkits/core/mcp";
import { createDispatcher } from "../dispatch.js";
import { iconSet } from "../icons/index.js";
import { onShutdown } from "../lifecycle.js";
import { callScope, carriedScope, carryScope, scopedRegistry } from "../scope.js";
import { createServerFor, serverInfo } from "../server.js";
import { type Failure, type Operations, telemetry } from "../telemetry/index.js";
import { type View, WHOLE } from "../views.js";
import { LineGuard, type OversizedLine } from "./lines.js";
import { StdioSession } from "./session.js";
import { TrackingTransport, Unanswered } from "./transport.js";

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
  /** `--apps on`: MCP Apps views for a client that takes them. */
  apps?: boolean;
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
const TRANSPORT_CLOSED = "transport closed";

/**
 * Serves over stdin/stdout, for every protocol revision (the client's first message decides),
 * until SIGINT, SIGTERM or stdin closes; then lets the requests in flight answer (a client may close
 * stdin right after its last request) for up to the grace period, aborts the tool calls still
 * running, and exits with 0. Every line passes a size guard before the SDK's transport reads it;
 * every message read is scoped once and dispatched (a plain tool call answered from the registry).
 */
export async function serveStdio(
  registryOf: (view: View) => ToolRegistry,
  logger: Logger,
  options: StdioOptions,
): Promise<void> {
  const registry = registryOf(WHOLE);
  const { names } = registry;
  const { maxMessageBytes: maxBytes, shutdownGraceMs: graceMs } = options;
  const session = new StdioSession(options.apps);
  const unanswered = new Unanswered();
  // No HTTP server serves the icons: they travel as data.
  const info = serverInfo(iconSet());
  const dispatcher = createDispatcher(registryOf, info);
  const guard = new LineGuard(maxBytes, (line) => refuse(line, { wire, logger, maxBytes }));
  // The transport reads the guard, which never ends: the SDK's transport would abort the calls in
  // flight when its input ends, and shutdown decides when that happens instead.
  process.stdin.pipe(guard, { end: false });
  // Telemetry's operations of the requests awaiting their answer, by id.
  const open = new Map<MessageId, Operations>();
  const intercept = (message: JSONRPCMessage, deliver: (message: JSONRPCMessage) => void) => {
    const receivedAt = performance.now();
    const inbound = readInbound(message, names);
    const read = inbound.single;
    // A batch on one line is the SDK's to refuse.
    if (!read) return deliver(message);
    unanswered.read(read);
    session.observe(read);
    const operations = telemetry()?.operations(inbound, {
      transport: "stdio",
      protocolVersion: session.revision,
      receivedAt,
    });
    const scope = session.scope(read, operations?.run);
    if (operations) track(operations, read.id, read.cancels);
    const sdk = async () => {
      const request = read.id !== undefined && read.method !== undefined;
      if (request) carryScope(message, scope);
      deliver(message);
      // A notification is done once handed over.
      if (!request) operations?.replied();
    };
    const reply = (response: string, failure?: Failure) => {
      const written = wire.sendSerialized(response, read.id);
      // After the write: the answer is on its way before anything is recorded.
      operations?.replied(failure);
      return written;
    };
    const dispatch = () =>
      dispatcher
        .dispatch(inbound, scope, { sdk, reply })
        .catch((error: Error) => logger.error("stdio request failed", { error: error.message }));
    // Within the message's span, so what the call sends upstream is its child.
    if (operations) operations.run(dispatch);
    else dispatch();
  };
  /** Keeps a request's operations until its answer; a cancellation ends the one it names. */
  const track = (operations: Operations, id: MessageId | undefined, cancels: MessageId | undefined) => {
    if (id !== undefined) open.set(id, operations);
    if (cancels === undefined) return;
    open.get(cancels)?.abandon("cancelled");
    open.delete(cancels);
  };
  // A closed transport cannot answer anything more, so there is nothing to wait for.
  const wire = new TrackingTransport(guard, unanswered, {
    closed: () => lifecycle.stop(TRANSPORT_CLOSED),
    answered: (id, answer) => {
      session.release(id);
      if (answer) open.get(id)?.answered(answer);
      open.delete(id);
    },
    intercept,
  });
  const served = serveStdioEntry(
    () =>
      createServerFor(
        registry,
        (ctx, _initialized, progress) =>
          callScope(carriedScope(ctx), { id: ctx.mcpReq.id, signal: ctx.mcpReq.signal, progress }),
        {
          apps: options.apps,
          info,
          // One server for the connection; each request's scope (its envelope) may change what it sees.
          perRequest: (ctx) => {
            const scope = carriedScope(ctx);
            return scopedRegistry(registryOf(scope.view), scope);
          },
        },
      ),
    { transport: wire, onerror: (error) => logger.debug("stdio message refused", { error: error.message }) },
  );
  const lifecycle = onShutdown(async (reason) => {
    const waitMs = reason === TRANSPORT_CLOSED ? 0 : graceMs;
    await drain({ reason, waitMs, unanswered, session, served, logger });
  }, logger);
  // `close` too: a stdin that fails ends without `end`.
  for (const event of ["end", "close"]) process.stdin.once(event, () => lifecycle.stop("stdin closed"));
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
 * (giving them ABORTED_ANSWER_MS to answer), and closes the connection.
 */
async function drain(state: {
  reason: string;
  waitMs: number;
  unanswered: Unanswered;
  session: StdioSession;
  served: { close(): Promise<void> };
  logger: Logger;
}): Promise<void> {
  const { reason, unanswered, logger } = state;
  // Lines already read reach the transport (and `unanswered`) within this turn of the loop.
  await new Promise((resolve) => setImmediate(resolve));
  logger.info("shutting down", { reason, in_flight: unanswered.size });
  if (!(await unanswered.settled(state.waitMs))) {
    logger.warn("aborting calls still running at shutdown", { reason, in_flight: unanswered.size });
    state.session.abortAll(new Error(`The server is shutting down (${reason}).`));
    await unanswered.settled(ABORTED_ANSWER_MS);
  }
  // Let the last answers reach stdout before the transport closes.
  await new Promise((resolve) => setImmediate(resolve));
  await Promise.race([state.served.close().catch(() => {}), delay(CLOSE_TIMEOUT_MS)]);
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());
