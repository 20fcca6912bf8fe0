import { ACCESS } from "./access.js";
import { SERVING } from "./serving.js";
import type { Environment, Group, ToolkitVariable } from "./setting.js";

/**
 * A copy of the process environment, taken once at start. This is the one place the server reads
 * `process.env`: every setting is read from this copy, as the table below says.
 */
export function readEnvironment(): Environment {
  return Object.freeze({ ...process.env });
}

/**
 * Every server setting: its flag, environment variable, parser, default, help and group, nested as
 * `ServerOptions` is (the rows are in serving.ts and access.ts). The commander program,
 * `ServerOptions`, `--help` and the README's tables (scripts/docs.mjs) are all generated from it.
 */
export const SETTINGS = { ...SERVING, ...ACCESS };

/** The toolkits' own variables: passed to them in `toolkitEnv`, listed for `--help` and the README. */
export const TOOLKIT_VARIABLES: readonly ToolkitVariable[] = [
  {
    env: "PAGER_ACCESS_TOKEN",
    secret: true,
    help: "PagerDuty OAuth access token (or sign in: toolkits-mcp login pager)",
  },
  {
    env: "PAGER_API_TOKEN",
    secret: true,
    help: "a classic PagerDuty API token, used when there is no OAuth token",
  },
  { env: "PAGER_REGION", help: "us (default) or eu" },
  {
    env: "PAGER_API_URL",
    help: "an explicit API URL (default https://api.pagerduty.com); wins over the region",
  },
  {
    env: "GOOGLE_ACCESS_TOKEN",
    secret: true,
    help: "Google OAuth access token with the scopes the sheets tools need (or sign in: toolkits-mcp login google)",
  },
  {
    env: "GOOGLE_API_ROOT_URL",
    help: "one root URL for every Google API the sheets toolkit calls (tests, proxies)",
  },
  { env: "GOOGLE_PICKER_API_KEY", help: "the file picker's browser API key (with GOOGLE_OAUTH_CLIENT_ID)" },
  {
    env: "GOOGLE_PICKER_APP_ID",
    help: "the picker's Cloud project number, when the client ID does not start with it",
  },
  { env: "MARKETING_API_KEY", secret: true, help: "Customer.io App API key (never a tool parameter)" },
  { env: "MARKETING_REGION", help: "us (default) or eu" },
  { env: "MARKETING_API_URL", help: "an explicit API URL; wins over the region" },
];

/**
 * The standard OpenTelemetry variables the server honours, read by the SDK itself (and, to decide
 * whether telemetry is on at all, by telemetry/plan.ts from the environment's copy): listed for
 * `--help` and the README.
 */
export const TELEMETRY_VARIABLES: readonly ToolkitVariable[] = [
  {
    env: "OTEL_EXPORTER_OTLP_ENDPOINT",
    help: "OTLP/HTTP collector (http://collector:4318): traces and metrics go to /v1/traces and /v1/metrics; setting it turns both on",
  },
  {
    env: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    help: "the traces' own full URL; turns traces on (OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: the same for metrics)",
  },
  { env: "OTEL_EXPORTER_OTLP_PROTOCOL", help: "http/protobuf (default) or http/json; grpc is not supported" },
  {
    env: "OTEL_EXPORTER_OTLP_HEADERS",
    secret: true,
    help: "headers sent with every export, key=value,… (a collector's API key)",
  },
  {
    env: "OTEL_TRACES_EXPORTER",
    help: "otlp or none (OTEL_METRICS_EXPORTER: the same for metrics); unset, otlp when an endpoint is set",
  },
  { env: "OTEL_SERVICE_NAME", help: "the service.name resource attribute (default toolkits-mcp)" },
  {
    env: "OTEL_RESOURCE_ATTRIBUTES",
    help: "more resource attributes, key=value,… (deployment.environment.name=prod)",
  },
  {
    env: "OTEL_TRACES_SAMPLER",
    help: "parentbased_always_on (default), parentbased_traceidratio with OTEL_TRACES_SAMPLER_ARG, always_off, …",
  },
  {
    env: "OTEL_METRIC_EXPORT_INTERVAL",
    help: "milliseconds between metric exports over OTLP (default 60000)",
  },
  {
    env: "OTEL_PROPAGATORS",
    help: "tracecontext,baggage (default) or none: how _meta and HTTP headers carry the trace",
  },
  { env: "OTEL_SDK_DISABLED", help: "true: nothing is exported over OTLP (--metrics-port still serves)" },
];

/** The variables documented in a group beside its settings (see `ToolkitVariable`). */
export const DOCUMENTED_VARIABLES: Partial<Record<Group, readonly ToolkitVariable[]>> = {
  Telemetry: TELEMETRY_VARIABLES,
  Toolkits: TOOLKIT_VARIABLES,
};
