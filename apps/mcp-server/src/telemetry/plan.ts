import type { TelemetrySettings } from "./index.js";

/** The OTLP encodings over HTTP the server sends (`OTEL_EXPORTER_OTLP_PROTOCOL`). */
export const OTLP_PROTOCOLS = ["http/protobuf", "http/json"] as const;
/** One of `OTLP_PROTOCOLS`. */
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/** The propagators the server reads `params._meta` and HTTP headers with (`OTEL_PROPAGATORS`). */
export type Propagator = "tracecontext" | "baggage";

/** What telemetry does, decided once at start from the settings. */
export interface TelemetryPlan {
  /** Spans, exported over OTLP; undefined when traces are off. */
  traces?: { protocol: OtlpProtocol };
  /** Metrics pushed over OTLP every `intervalMs`; undefined when off. */
  otlpMetrics?: { protocol: OtlpProtocol; intervalMs: number; timeoutMs: number };
  /** Metrics served in Prometheus' text format; undefined without `--metrics-port`. */
  prometheus?: { host: string; port: number };
  propagators: readonly Propagator[];
  version: string;
}

type Env = TelemetrySettings["env"];

/**
 * Reads the standard variables: a signal is exported when `OTEL_<SIGNAL>_EXPORTER` says `otlp`, or,
 * unset, when an OTLP endpoint is set for it (`OTEL_EXPORTER_OTLP_ENDPOINT` or the signal's own);
 * `OTEL_SDK_DISABLED=true` exports nothing. Prometheus needs `--metrics-port`. Undefined when
 * nothing is on: the default.
 * @throws Error naming the variable, for an exporter, protocol or propagator the server does not have.
 */
export function telemetryPlan(settings: TelemetrySettings): TelemetryPlan | undefined {
  const { env } = settings;
  const disabled = env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true";
  const traces = !disabled && exporting(env, "TRACES");
  const metrics = !disabled && exporting(env, "METRICS");
  const prometheus =
    settings.metricsPort === undefined
      ? undefined
      : { host: settings.metricsHost, port: settings.metricsPort };
  if (!traces && !metrics && !prometheus) return undefined;
  return {
    traces: traces ? { protocol: protocolOf(env, "TRACES") } : undefined,
    otlpMetrics: metrics
      ? {
          protocol: protocolOf(env, "METRICS"),
          intervalMs: millis(env, "OTEL_METRIC_EXPORT_INTERVAL", 60_000),
          timeoutMs: millis(env, "OTEL_METRIC_EXPORT_TIMEOUT", 30_000),
        }
      : undefined,
    prometheus,
    propagators: propagatorsOf(env),
    version: settings.version,
  };
}

/** Whether `OTEL_<signal>_EXPORTER` (or, unset, an OTLP endpoint) asks for the signal over OTLP. */
function exporting(env: Env, signal: "TRACES" | "METRICS"): boolean {
  const name = `OTEL_${signal}_EXPORTER`;
  const exporters = listOf(env[name]);
  if (!exporters.length)
    return Boolean(
      env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`]?.trim(),
    );
  const unknown = exporters.filter((exporter) => exporter !== "otlp" && exporter !== "none");
  if (unknown.length) {
    const prometheus =
      signal === "METRICS" && unknown.includes("prometheus") ? " (for Prometheus, use --metrics-port)" : "";
    throw new Error(`${name} may be otlp or none (got ${unknown.join(", ")})${prometheus}.`);
  }
  return exporters.includes("otlp");
}

function protocolOf(env: Env, signal: "TRACES" | "METRICS"): OtlpProtocol {
  const own = `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`;
  const name = env[own]?.trim() ? own : "OTEL_EXPORTER_OTLP_PROTOCOL";
  // The specification's default.
  const value = env[name]?.trim() || "http/protobuf";
  if ((OTLP_PROTOCOLS as readonly string[]).includes(value)) return value as OtlpProtocol;
  throw new Error(
    `${name} may be ${OTLP_PROTOCOLS.join(" or ")}: this server sends OTLP over HTTP (got ${value}).`,
  );
}

function propagatorsOf(env: Env): Propagator[] {
  const given = listOf(env.OTEL_PROPAGATORS);
  if (!given.length) return ["tracecontext", "baggage"];
  const unknown = given.filter((name) => !["tracecontext", "baggage", "none"].includes(name));
  if (unknown.length)
    throw new Error(`OTEL_PROPAGATORS may list tracecontext, baggage or none (got ${unknown.join(", ")}).`);
  return given.filter((name): name is Propagator => name !== "none");
}

function millis(env: Env, name: string, fallback: number): number {
  const text = env[name]?.trim();
  if (!text) return fallback;
  const value = Number(text);
  if (Number.isInteger(value) && value > 0) return value;
  throw new Error(`${name} must be a whole number of milliseconds above 0 (got ${text}).`);
}

const listOf = (value: string | undefined): string[] =>
  (value ?? "")
    .split(",")
    .map((item) => item.trim().toLowerCase())
    .filter(Boolean);
