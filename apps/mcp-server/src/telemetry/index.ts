import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import type { Logger, UpstreamFetch } from "@toolkits/core";
import type { InboundBody } from "@toolkits/core/mcp";
import type { KeyValueStore } from "../team/store/kv.js";
import { type TelemetryPlan, telemetryPlan } from "./plan.js";

// Telemetry is off unless an OTEL_* variable or --metrics-port asks for it. This module is all a
// server without it loads: the OpenTelemetry SDK lives in ./sdk.ts, imported once at start when
// it is on (the bundle keeps it in a chunk of its own), and every place that records something
// asks `telemetry()` first, which is undefined when it is off: one branch per call, no SDK, no
// no-op spans.

/** How a message reached the server, as its transport knows it. */
export interface Arrival {
  transport: "stdio" | "http";
  /**
   * `mcp.protocol.version` when the message itself names none: the revision its stdio connection
   * agreed at `initialize`, or a 2025 HTTP request's `MCP-Protocol-Version` header.
   */
  protocolVersion?: string;
  /** When the request was received: milliseconds on the `performance.now()` clock. */
  receivedAt: number;
  /** The caller's principal; recorded only as its pseudonymous id (`enduser.pseudo.id`), never as it is. */
  principal?: string;
  /** Over HTTP: the protocol version, the peer and the headers (a `traceparent` there is linked). */
  http?: { version: string; clientAddress?: string; clientPort?: number; headers: IncomingHttpHeaders };
}

/** How an operation failed: what `error.type` says, and the JSON-RPC error's code and message when there is one. */
export interface Failure {
  /** The JSON-RPC error code as a string, `tool_error` for a CallToolResult with `isError`, or another low-cardinality word. */
  errorType: string;
  code?: number;
  message?: string;
}

/**
 * The MCP operations of one request body: a server span per request or notification (the
 * conventions' `mcp.server` span) and its `mcp.server.operation.duration`, ended by the answer.
 */
export interface Operations {
  /** Runs `fn` with the (single) message's span as the active context, so what it sends is its child. */
  run<R>(fn: () => R): R;
  /** The fast path's answer was written: `failure` when it was an error or a tool error. */
  replied(failure?: Failure): void;
  /** An answer the SDK wrote: a JSON-RPC message (or a batch's array) as an object. */
  answered(message: unknown): void;
  /** An answer the SDK wrote over HTTP: its status, content type and body (JSON or an event stream). */
  answeredHttp(status: number, contentType: string | null, body: string): void;
  /** Ends what is still open, as failed with `errorType` (`cancelled`, `insufficient_scope`, …). */
  abandon(errorType: string): void;
}

/** The outcome of one step of the built-in authorization server, counted by step and reason. */
export type AuthStepOutcome = "ok" | "refused";

/** What the server records while telemetry is on (see ./sdk.ts). */
export interface Telemetry {
  /** Whether spans are made (traces exported); metrics alone make none. */
  readonly tracing: boolean;
  /** The operations of a request body read now; undefined when it holds no request or notification. */
  operations(inbound: InboundBody, arrival: Arrival): Operations | undefined;
  /** `fetch` with a client span (`{method} {url.template}`) and `http.client.request.duration` per request. */
  upstreamFetch(fetch: UpstreamFetch): UpstreamFetch;
  /** `store` with a client span per operation (within a traced request) and `db.client.operation.duration`. */
  store(store: KeyValueStore, system: "redis" | "file"): KeyValueStore;
  /** A rate-limit budget made a call wait `waitedMs`, or refused it (`refused`: the wait would have been too long). */
  rateLimitWait(budget: string, waitedMs: number, refused: boolean): void;
  /** One step of the built-in authorization server ended: `reason` is low-cardinality (an OAuth error code). */
  authStep(step: string, outcome: AuthStepOutcome, reason?: string): void;
  /** `trace_id` and `span_id` of the active span, for log lines; undefined outside one. */
  logFields(): { trace_id: string; span_id: string } | undefined;
  /** Exports what is pending and stops; bounded in time. */
  shutdown(): Promise<void>;
}

let current: Telemetry | undefined;

/** The process's telemetry, or undefined when it is off. */
export const telemetry = (): Telemetry | undefined => current;

/** What starting telemetry needs: the environment (the standard `OTEL_*` variables) and the metrics listener. */
export interface TelemetrySettings {
  env: Readonly<Record<string, string | undefined>>;
  /** `--metrics-port`: Prometheus' text format at `/metrics` on this port; undefined for none. */
  metricsPort?: number;
  /** `--metrics-host`: the interface the metrics listener binds. */
  metricsHost: string;
  /** The server's version, as the resource's `service.version`. */
  version: string;
}

/**
 * Starts telemetry when the settings ask for it (see plan.ts), loading the OpenTelemetry SDK then
 * and only then; otherwise does nothing and loads nothing.
 * @throws Error for an OTEL_* setting the server cannot honour (an unsupported OTLP protocol), or
 *   when the metrics listener cannot bind its port.
 */
export async function startTelemetry(settings: TelemetrySettings, logger: Logger): Promise<void> {
  const plan: TelemetryPlan | undefined = telemetryPlan(settings);
  if (!plan) return;
  const { startSdk } = await import("./sdk.js");
  current = await startSdk(plan, logger);
}

/** How an HTTP request arrived (`receivedAt`: its `performance.now()`), for `Telemetry.operations`. */
export function httpArrival(
  req: IncomingMessage,
  receivedAt: number,
  principal: string | undefined,
): Arrival {
  const header = req.headers["mcp-protocol-version"];
  return {
    transport: "http",
    protocolVersion: typeof header === "string" ? header : undefined,
    receivedAt,
    principal,
    http: {
      version: req.httpVersion,
      clientAddress: req.socket.remoteAddress,
      clientPort: req.socket.remotePort,
      headers: req.headers,
    },
  };
}

/** For tests: replaces the process's telemetry (undefined turns it off). */
export function setTelemetry(value: Telemetry | undefined): void {
  current = value;
}
