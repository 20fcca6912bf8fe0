import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  context,
  DiagLogLevel,
  diag,
  isSpanContextValid,
  type Meter,
  propagation,
  type TextMapPropagator,
  trace,
} from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPMetricExporter as JsonMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { OTLPMetricExporter as ProtoMetricExporter } from "@opentelemetry/exporter-metrics-otlp-proto";
import { PrometheusExporter } from "@opentelemetry/exporter-prometheus";
import { OTLPTraceExporter as JsonTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtoTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
} from "@opentelemetry/resources";
import { MeterProvider, type MetricReader, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { Logger } from "@toolkits/core";
import * as names from "./conventions.js";
import type { Telemetry } from "./index.js";
import { operationsOf } from "./operations.js";
import type { Propagator, TelemetryPlan } from "./plan.js";
import { recordedStore } from "./store.js";
import { recordedFetch } from "./upstream.js";

/** How long stopping may take to export what is pending, in milliseconds. */
const SHUTDOWN_MS = 2_000;
const SERVICE_NAME = "toolkits-mcp";

/**
 * The OpenTelemetry SDK as `plan` asks for it: a tracer provider exporting in batches over OTLP
 * (OTEL_BSP_* and OTEL_TRACES_SAMPLER apply), a meter provider pushing over OTLP and/or read by
 * Prometheus at `/metrics` on its own listener, the W3C propagators, and an AsyncLocalStorage
 * context manager, so what a call sends is its span's child. The exporters read their endpoint,
 * headers, timeout and compression from the standard variables themselves.
 * @throws Error when the metrics listener cannot bind.
 */
export async function startSdk(plan: TelemetryPlan, logger: Logger): Promise<Telemetry> {
  // The SDK's own complaints (an export that failed) reach the log: their words only, never the
  // objects they pass along (a request, its headers). A component's name comes first.
  const complain = (...args: unknown[]) =>
    logger.warn("telemetry", { error: args.filter((arg) => typeof arg === "string").join(": ") });
  diag.setLogger(
    {
      error: complain,
      warn: complain,
      info: () => {},
      debug: () => {},
      verbose: () => {},
    },
    DiagLogLevel.WARN,
  );
  const resource = defaultResource()
    .merge(resourceFromAttributes({ "service.name": SERVICE_NAME, "service.version": plan.version }))
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win.
    .merge(detectResources({ detectors: [envDetector] }));
  // Only spans need a context that follows the call through its awaits: metrics alone go without
  // AsyncLocalStorage, which on Node 20 costs every promise the process makes.
  if (plan.traces) context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(propagatorOf(plan.propagators));
  const tracing = plan.traces
    ? new BasicTracerProvider({
        resource,
        spanProcessors: [
          new BatchSpanProcessor(
            plan.traces.protocol === "http/json" ? new JsonTraceExporter() : new ProtoTraceExporter(),
          ),
        ],
      })
    : undefined;
  if (tracing) trace.setGlobalTracerProvider(tracing);
  const readers: MetricReader[] = [];
  if (plan.otlpMetrics) {
    const { protocol, intervalMs, timeoutMs } = plan.otlpMetrics;
    const exporter = protocol === "http/json" ? new JsonMetricExporter() : new ProtoMetricExporter();
    readers.push(
      new PeriodicExportingMetricReader({
        exporter,
        exportIntervalMillis: intervalMs,
        exportTimeoutMillis: Math.min(timeoutMs, intervalMs),
      }),
    );
  }
  const prometheus = plan.prometheus && new PrometheusExporter({ preventServerStart: true });
  if (prometheus) readers.push(prometheus);
  const meters = new MeterProvider({ resource, readers });
  const metricsServer =
    prometheus && plan.prometheus && (await serveMetrics(prometheus, plan.prometheus, logger));
  const tracer = tracing?.getTracer(SERVICE_NAME, plan.version);
  const meter = meters.getMeter(SERVICE_NAME, plan.version);
  const instruments = instrumentsOf(meter);
  logger.info("telemetry on", {
    traces: plan.traces?.protocol ?? "off",
    metrics: plan.otlpMetrics?.protocol ?? "off",
    ...(metricsServer && { metrics_url: metricsServer.url }),
  });
  return {
    tracing: tracer !== undefined,
    operations: (inbound, arrival) =>
      operationsOf(inbound, arrival, { tracer, duration: instruments.operation }),
    upstreamFetch: (fetch) => recordedFetch(fetch, { tracer, duration: instruments.upstream }),
    store: (store, system) => recordedStore(store, system, { tracer, duration: instruments.store }),
    rateLimitWait(budget, waitedMs, refused) {
      const outcome = refused ? "refused" : "waited";
      instruments.rateLimit.record(waitedMs / 1000, {
        [names.RATE_LIMIT_BUDGET]: budget,
        [names.RATE_LIMIT_OUTCOME]: outcome,
      });
      trace.getActiveSpan()?.addEvent("rate_limit.wait", {
        [names.RATE_LIMIT_BUDGET]: budget,
        [names.RATE_LIMIT_OUTCOME]: outcome,
      });
    },
    authStep(step, outcome, reason) {
      instruments.authSteps.add(1, {
        [names.AUTH_STEP]: step,
        [names.AUTH_OUTCOME]: outcome,
        ...(reason !== undefined && { [names.ERROR_TYPE]: reason }),
      });
    },
    logFields() {
      if (!tracer) return undefined;
      const active = trace.getActiveSpan()?.spanContext();
      return active && isSpanContextValid(active)
        ? { trace_id: active.traceId, span_id: active.spanId }
        : undefined;
    },
    async shutdown() {
      const stopped = Promise.allSettled([tracing?.shutdown(), meters.shutdown(), metricsServer?.close()]);
      await Promise.race([stopped, new Promise((resolve) => setTimeout(resolve, SHUTDOWN_MS).unref())]);
    },
  };
}

function propagatorOf(propagators: readonly Propagator[]): TextMapPropagator {
  return new CompositePropagator({
    propagators: propagators.map((name) =>
      name === "tracecontext" ? new W3CTraceContextPropagator() : new W3CBaggagePropagator(),
    ),
  });
}

/** Every instrument, made once. */
function instrumentsOf(meter: Meter) {
  const histogram = (name: string, description: string, buckets: number[]) =>
    meter.createHistogram(name, { unit: "s", description, advice: { explicitBucketBoundaries: buckets } });
  return {
    operation: histogram(
      names.MCP_SERVER_OPERATION_DURATION,
      "MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent.",
      names.MCP_DURATION_BUCKETS,
    ),
    upstream: histogram(
      names.HTTP_CLIENT_REQUEST_DURATION,
      "Duration of upstream HTTP requests, until the answer's headers.",
      names.HTTP_DURATION_BUCKETS,
    ),
    store: histogram(
      names.DB_CLIENT_OPERATION_DURATION,
      "Duration of operations on the per-user store.",
      names.DB_DURATION_BUCKETS,
    ),
    rateLimit: histogram(
      names.RATE_LIMIT_WAIT_DURATION,
      "How long a person's rate-limit budget made an upstream request wait, or would have (refused).",
      names.RATE_LIMIT_BUCKETS,
    ),
    authSteps: meter.createCounter(names.AUTH_STEPS, {
      unit: "{step}",
      description:
        "Steps of the built-in authorization server (sign-in, consent, token, refresh, …) by outcome and reason.",
    }),
  };
}

/**
 * Serves `exporter`'s text format at `/metrics` on its own listener (`--metrics-port`), apart from
 * the MCP port, so scraping needs no MCP credentials and never reaches the MCP endpoint.
 */
async function serveMetrics(
  exporter: PrometheusExporter,
  where: { host: string; port: number },
  logger: Logger,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (req.method === "GET" && (req.url === "/metrics" || req.url?.startsWith("/metrics?")))
      return exporter.getMetricsRequestHandler(req, res);
    res.writeHead(404, { "content-type": "text/plain" }).end("Not found: metrics are at /metrics.\n");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) =>
      reject(new Error(`--metrics-port cannot listen on ${where.host}:${where.port}: ${error.message}`)),
    );
    server.listen(where.port, where.host, () => resolve());
  });
  // The process exits when the server stops; the scrape listener never holds it.
  server.unref();
  const { port } = server.address() as AddressInfo;
  const host = where.host.includes(":") ? `[${where.host}]` : where.host;
  const url = `http://${host}:${port}/metrics`;
  logger.debug("serving metrics", { url });
  return {
    url,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
