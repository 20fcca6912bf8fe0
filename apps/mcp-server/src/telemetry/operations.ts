import {
  type Attributes,
  type Context,
  context,
  defaultTextMapGetter,
  type Histogram,
  isSpanContextValid,
  type Link,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { redact } from "@toolkits/core";
import {
  type InboundBody,
  type InboundMessage,
  LEGACY_REVISIONS,
  MODERN_REVISIONS,
} from "@toolkits/core/mcp";
import { principalHash } from "../team/store/hash.js";
import * as names from "./conventions.js";
import type { Arrival, Failure, Operations } from "./index.js";
import { later } from "./later.js";

/** What operations record into. */
export interface OperationInstruments {
  /** Undefined when traces are off: then no span is made. */
  tracer?: Tracer;
  duration: Histogram;
}

const REVISIONS: ReadonlySet<string> = new Set([...MODERN_REVISIONS, ...LEGACY_REVISIONS]);
const MAX_STATUS_MESSAGE = 256;
const TOOL_ERROR: Failure = Object.freeze({ errorType: "tool_error" });

/** `params._meta` as a carrier: the trace context rides there unprefixed (`traceparent`, `tracestate`, `baggage`). */
const metaGetter: TextMapGetter<Readonly<Record<string, unknown>>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === "string" ? value : undefined;
  },
};

/** The operations of a body read now (see `Telemetry.operations`). */
export function operationsOf(
  inbound: InboundBody,
  arrival: Arrival,
  instruments: OperationInstruments,
): Operations | undefined {
  const messages = inbound.messages.filter((message) => message.method !== undefined);
  if (!messages.length) return undefined;
  // The HTTP request's own context, when it carries one, is linked, never the parent (the conventions).
  const links = instruments.tracer && arrival.http ? transportLinks(arrival.http.headers) : undefined;
  const operations = messages.map((message) => new Operation(message, arrival, instruments, links));
  const [only] = operations;
  if (inbound.single && only) return single(only);
  return batch(operations);
}

function single(operation: Operation): Operations {
  return {
    run: (fn) => operation.run(fn),
    replied: (failure) => operation.end(failure),
    answered: (message) => operation.end(failureOf(message)),
    answeredHttp: (status, contentType, body) =>
      operation.end(
        status < 400 && !mayFail(body)
          ? undefined
          : failureIn(messagesIn(contentType, body), operation.id, status),
      ),
    abandon: (errorType) => operation.end({ errorType }),
  };
}

/**
 * Whether an answer's text may hold a failure: an error, or a tool error as the SDK writes it. A
 * success is then recorded without parsing its body again (`"error"` inside a result's text is
 * escaped, so the test errs only towards parsing).
 */
const mayFail = (body: string): boolean => body.includes('"error"') || body.includes('"isError":true');

/** A 2025-03-26 batch: each message's operation ends with its own answer in the batch's. */
function batch(operations: Operation[]): Operations {
  const endAll = (answers: unknown[], status: number) => {
    for (const operation of operations) operation.end(failureIn(answers, operation.id, status));
  };
  return {
    run: (fn) => fn(),
    replied: () => endAll([], 200),
    answered: (message) => endAll(Array.isArray(message) ? message : [message], 200),
    answeredHttp: (status, contentType, body) => endAll(messagesIn(contentType, body), status),
    abandon: (errorType) => {
      for (const operation of operations) operation.end({ errorType });
    },
  };
}

/** One request's or notification's span and duration. */
class Operation {
  readonly id: InboundMessage["id"];
  readonly #metric: Attributes;
  readonly #span: Span | undefined;
  readonly #context: Context | undefined;
  readonly #receivedAt: number;
  readonly #duration: Histogram;
  #ended = false;

  constructor(message: InboundMessage, arrival: Arrival, instruments: OperationInstruments, links?: Link[]) {
    this.id = message.id;
    this.#receivedAt = arrival.receivedAt;
    this.#duration = instruments.duration;
    const method = names.KNOWN_METHODS.has(message.method ?? "") ? (message.method as string) : names.OTHER;
    // Only a tool the server serves names a span or a series: a made-up name stays out of both.
    const tool = method === "tools/call" ? message.call?.canonical : undefined;
    const revision = message.revision ?? arrival.protocolVersion;
    const known = revision !== undefined && REVISIONS.has(revision) ? revision : undefined;
    this.#metric = metricAttributes(method, tool, known, arrival.transport, arrival.http?.version);
    const { tracer } = instruments;
    if (!tracer) return;
    // The parent is the client's, from `params._meta`; baggage comes along in the context.
    const parent = message.meta ? propagation.extract(ROOT_CONTEXT, message.meta, metaGetter) : ROOT_CONTEXT;
    // A number below `performance.now()` is read as a time on the performance clock, as the SDK's own.
    const startTime = arrival.receivedAt;
    // The span copies the shared attributes; what is the request's own is set on it after.
    const span = tracer.startSpan(
      tool === undefined ? method : `${method} ${tool}`,
      { kind: SpanKind.SERVER, attributes: this.#metric, links, startTime },
      parent,
    );
    if (message.id !== undefined) span.setAttribute(names.JSONRPC_REQUEST_ID, String(message.id));
    const uri = names.RESOURCE_METHODS.has(method) ? message.params?.uri : undefined;
    if (typeof uri === "string") span.setAttribute(names.MCP_RESOURCE_URI, uri);
    const { http, principal } = arrival;
    if (http?.clientAddress !== undefined) span.setAttribute(names.CLIENT_ADDRESS, http.clientAddress);
    if (http?.clientPort !== undefined) span.setAttribute(names.CLIENT_PORT, http.clientPort);
    if (principal !== undefined) span.setAttribute(names.ENDUSER_PSEUDO_ID, principalHash(principal));
    this.#span = span;
    this.#context = trace.setSpan(parent, span);
  }

  run<R>(fn: () => R): R {
    return this.#context ? context.with(this.#context, fn) : fn();
  }

  /**
   * Ends it once, now: its duration and its span's end are taken now and recorded just after (see
   * later.ts), failed when `failure` says so.
   */
  end(failure?: Failure): void {
    if (this.#ended) return;
    this.#ended = true;
    const ended = performance.now();
    later(() => this.#record(ended, failure));
  }

  #record(ended: number, failure: Failure | undefined): void {
    const failed = failure && {
      [names.ERROR_TYPE]: failure.errorType,
      ...(failure.code !== undefined && { [names.RPC_RESPONSE_STATUS_CODE]: String(failure.code) }),
    };
    this.#duration.record(
      (ended - this.#receivedAt) / 1000,
      failed ? { ...this.#metric, ...failed } : this.#metric,
    );
    const span = this.#span;
    if (!span) return;
    if (failed) {
      span.setAttributes(failed);
      // The JSON-RPC error's message, as the conventions ask; redacted and cut short all the same.
      const message = failure.message && redact(failure.message).slice(0, MAX_STATUS_MESSAGE);
      span.setStatus({ code: SpanStatusCode.ERROR, ...(message && { message }) });
    }
    span.end(ended);
  }
}

/** The metric's attributes of each kind of operation, made once: the series are few. */
const metricCache = new Map<string, Attributes>();

function metricAttributes(
  method: string,
  tool: string | undefined,
  revision: string | undefined,
  transport: Arrival["transport"],
  httpVersion: string | undefined,
): Attributes {
  const key = `${method}\n${tool}\n${revision}\n${transport}\n${httpVersion}`;
  let attributes = metricCache.get(key);
  if (!attributes) {
    attributes = Object.freeze({
      [names.MCP_METHOD_NAME]: method,
      ...(tool !== undefined && {
        [names.GEN_AI_TOOL_NAME]: tool,
        [names.GEN_AI_OPERATION_NAME]: "execute_tool",
      }),
      ...(revision !== undefined && { [names.MCP_PROTOCOL_VERSION]: revision }),
      [names.NETWORK_TRANSPORT]: transport === "stdio" ? "pipe" : "tcp",
      ...(httpVersion !== undefined && {
        [names.NETWORK_PROTOCOL_NAME]: "http",
        [names.NETWORK_PROTOCOL_VERSION]: httpVersion,
      }),
    });
    metricCache.set(key, attributes);
  }
  return attributes;
}

/** The HTTP request's trace context as a link, when its headers carry a valid one. */
function transportLinks(headers: Readonly<Record<string, unknown>>): Link[] | undefined {
  const linked = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, headers, defaultTextMapGetter));
  return linked && isSpanContextValid(linked) ? [{ context: linked }] : undefined;
}

/** How an answer failed: its JSON-RPC error, or a tool result with `isError`; undefined for success. */
export function failureOf(message: unknown): Failure | undefined {
  if (typeof message !== "object" || message === null) return undefined;
  const { error, result } = message as { error?: { code?: unknown; message?: unknown }; result?: unknown };
  if (error) {
    const code = typeof error.code === "number" ? error.code : undefined;
    const text = typeof error.message === "string" ? error.message : undefined;
    return { errorType: code === undefined ? names.OTHER : String(code), code, message: text };
  }
  return (result as { isError?: unknown } | undefined)?.isError === true ? TOOL_ERROR : undefined;
}

/**
 * The failure of the answer to `id` among `answers`; with none to find, an HTTP error status (an
 * answer without JSON-RPC, or with an error for no id, such as the SDK's refusals) is the failure.
 */
function failureIn(answers: unknown[], id: InboundMessage["id"], status: number): Failure | undefined {
  const own = id === undefined ? undefined : answers.find((answer) => idOf(answer) === id);
  if (own) return failureOf(own);
  const refusal = answers.find((answer) => idOf(answer) === null);
  if (refusal) return failureOf(refusal);
  return status >= 400 ? { errorType: String(status) } : undefined;
}

const idOf = (answer: unknown): unknown =>
  typeof answer === "object" && answer !== null ? (answer as { id?: unknown }).id : undefined;

/** The JSON-RPC messages of an HTTP answer's body: JSON (one or a batch), or an event stream's data lines. */
function messagesIn(contentType: string | null, body: string): unknown[] {
  if (!body) return [];
  const texts = contentType?.includes("text/event-stream")
    ? body
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5))
    : [body];
  return texts.flatMap((text) => {
    try {
      const parsed: unknown = JSON.parse(text);
      return Array.isArray(parsed) ? parsed : [parsed];
    } catch {
      return [];
    }
  });
}
