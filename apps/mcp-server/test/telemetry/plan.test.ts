// Whether telemetry is on, and how, from the standard OTEL_* variables and --metrics-port: off by
// default, so a server without them never loads the OpenTelemetry SDK.
import { describe, expect, it } from "vitest";
import { telemetryPlan } from "../../src/telemetry/plan.js";
import { collectionOf } from "../../src/telemetry/store.js";

const plan = (env: Record<string, string>, metricsPort?: number) =>
  telemetryPlan({ env, metricsPort, metricsHost: "127.0.0.1", version: "1.0.0" });

describe("telemetryPlan", () => {
  it("is off without an endpoint, an exporter or --metrics-port", () => {
    expect(plan({})).toBeUndefined();
    expect(plan({ OTEL_SERVICE_NAME: "x", OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" })).toBeUndefined();
  });

  it("exports both signals to an OTLP endpoint, over http/protobuf unless told", () => {
    expect(plan({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })).toMatchObject({
      traces: { protocol: "http/protobuf" },
      otlpMetrics: { protocol: "http/protobuf", intervalMs: 60_000 },
      propagators: ["tracecontext", "baggage"],
    });
  });

  it("turns each signal on and off by its own endpoint and exporter", () => {
    const tracesOnly = plan({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://c/v1/traces" });
    expect(tracesOnly?.traces).toBeDefined();
    expect(tracesOnly?.otlpMetrics).toBeUndefined();
    const noMetrics = plan({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c", OTEL_METRICS_EXPORTER: "none" });
    expect(noMetrics?.otlpMetrics).toBeUndefined();
    expect(plan({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c", OTEL_SDK_DISABLED: "true" })).toBeUndefined();
  });

  it("serves Prometheus on --metrics-port alone, whatever OTEL_SDK_DISABLED says", () => {
    expect(plan({ OTEL_SDK_DISABLED: "true" }, 9464)).toMatchObject({
      prometheus: { host: "127.0.0.1", port: 9464 },
      traces: undefined,
      otlpMetrics: undefined,
    });
  });

  it("reads the signal's own protocol, the export interval and the propagators", () => {
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://c",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
      OTEL_METRIC_EXPORT_INTERVAL: "5000",
      OTEL_PROPAGATORS: "tracecontext",
    };
    expect(plan(env)).toMatchObject({
      traces: { protocol: "http/json" },
      otlpMetrics: { protocol: "http/protobuf", intervalMs: 5_000 },
      propagators: ["tracecontext"],
    });
  });

  it("refuses what the server cannot honour, naming the variable", () => {
    expect(() =>
      plan({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }),
    ).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL may be http\/protobuf or http\/json/);
    expect(() => plan({ OTEL_METRICS_EXPORTER: "prometheus" })).toThrow(/use --metrics-port/);
    expect(() => plan({ OTEL_TRACES_EXPORTER: "otlp", OTEL_PROPAGATORS: "b3" })).toThrow(/OTEL_PROPAGATORS/);
    expect(() => plan({ OTEL_METRICS_EXPORTER: "otlp", OTEL_METRIC_EXPORT_INTERVAL: "soon" })).toThrow(
      /OTEL_METRIC_EXPORT_INTERVAL/,
    );
  });
});

describe("a store key's collection (db.collection.name)", () => {
  it("is its leading name segments, never a hash", () => {
    const hash = "Qm9iIGlzIGEgcGVyc29uLCBub3QgYSBr";
    expect(collectionOf(`tk:conn:${hash}:pager`)).toBe("tk:conn");
    expect(collectionOf(`tk:as:Grant:${hash}`)).toBe("tk:as:Grant");
    expect(collectionOf(`tk:lock:refresh:pager:${hash}`)).toBe("tk:lock:refresh:pager");
    expect(collectionOf(hash)).toBeUndefined();
  });
});
