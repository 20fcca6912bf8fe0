// An OTLP/HTTP receiver on loopback for the telemetry tests: it keeps every body the server's
// exporters post (JSON encoding, OTEL_EXPORTER_OTLP_PROTOCOL=http/json) as text, for a grep of
// everything exported, and reads the spans and metric points out of them.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** An attribute's value as OTLP's JSON encoding writes it. */
type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
};
type KeyValues = { key: string; value: AnyValue }[];

/** A span as exported, its attributes flattened. */
export interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** 2 SERVER, 3 CLIENT. */
  kind: number;
  attributes: Record<string, string | number | boolean | undefined>;
  links: { traceId: string; spanId: string }[];
  status: { code?: number; message?: string };
}

/** One data point of a histogram or sum, its attributes flattened. */
export interface ExportedPoint {
  metric: string;
  attributes: Record<string, string | number | boolean | undefined>;
  count: number;
}

const flat = (attributes: KeyValues | undefined) =>
  Object.fromEntries(
    (attributes ?? []).map(({ key, value }) => [
      key,
      value.stringValue ??
        (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue)),
    ]),
  );

export interface Collector {
  /** The base URL to give as OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  /** Every body received, as text. */
  bodies: string[];
  spans(): ExportedSpan[];
  points(): ExportedPoint[];
  /** Resolves with what `find` finds once it finds it; rejects after `ms`. */
  until<T>(find: () => T | undefined, ms?: number): Promise<T>;
  close(): Promise<void>;
}

export async function otlpCollector(): Promise<Collector> {
  const bodies: { path: string; text: string }[] = [];
  const server = createServer((req, res) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      text += chunk;
    });
    req.on("end", () => {
      bodies.push({ path: req.url ?? "", text });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const of = (path: string) =>
    bodies.filter((body) => body.path === path).map((body) => JSON.parse(body.text));
  const spans = (): ExportedSpan[] =>
    of("/v1/traces").flatMap((body) =>
      body.resourceSpans.flatMap((resource: { scopeSpans: { spans: Record<string, unknown>[] }[] }) =>
        resource.scopeSpans.flatMap((scope) =>
          scope.spans.map((span) => ({
            traceId: span.traceId as string,
            spanId: span.spanId as string,
            parentSpanId: (span.parentSpanId as string | undefined) || undefined,
            name: span.name as string,
            kind: span.kind as number,
            attributes: flat(span.attributes as KeyValues),
            links: ((span.links ?? []) as { traceId: string; spanId: string }[]).map(
              ({ traceId, spanId }) => ({
                traceId,
                spanId,
              }),
            ),
            status: (span.status ?? {}) as ExportedSpan["status"],
          })),
        ),
      ),
    );
  const points = (): ExportedPoint[] =>
    of("/v1/metrics").flatMap((body) =>
      body.resourceMetrics.flatMap((resource: { scopeMetrics: { metrics: Record<string, unknown>[] }[] }) =>
        resource.scopeMetrics.flatMap((scope) =>
          scope.metrics.flatMap((metric) => {
            const data = (metric.histogram ?? metric.sum) as
              | { dataPoints: { attributes: KeyValues; count?: number | string; asInt?: number | string }[] }
              | undefined;
            return (data?.dataPoints ?? []).map((point) => ({
              metric: metric.name as string,
              attributes: flat(point.attributes),
              count: Number(point.count ?? point.asInt ?? 0),
            }));
          }),
        ),
      ),
    );
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get bodies() {
      return bodies.map((body) => body.text);
    },
    spans,
    points,
    async until(find, ms = 15_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const found = find();
        if (found !== undefined) return found;
        if (Date.now() > deadline) throw new Error("not exported in time");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The variables that send traces and metrics to `collector` quickly, as JSON. */
export const exportingTo = (collector: Collector): Record<string, string> => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
  OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
  OTEL_BSP_SCHEDULE_DELAY: "50",
  OTEL_METRIC_EXPORT_INTERVAL: "200",
});
