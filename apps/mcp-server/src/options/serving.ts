import { DEFAULT_UPSTREAM_LIMITS, TOOL_NAME_FORMS } from "@toolkits/core";
import { CATALOG_MODES } from "@toolkits/core/mcp";
import { AccountChoiceError, choiceOf } from "../credentials/choice.js";
import type { AccountChoice } from "../credentials/labels.js";
import { DEFAULT_MAX_MESSAGE_BYTES } from "../stdio/index.js";
import { TOOLKIT_IDS, TOOLKITS, toolsetOf } from "../toolkits.js";
import { InvalidSetting, inGroup, integer, list, oneOf, text, yes } from "./setting.js";

const inTransport = inGroup("Transport");
const inTools = inGroup("Tools");
const inHttp = inGroup("HTTP");
const inHttpLimits = inGroup("HTTP limits");
const inUpstream = inGroup("Upstream");
const inLogging = inGroup("Logging");
const inTelemetry = inGroup("Telemetry");

const TOOLSETS = [
  ...new Set(Object.values(TOOLKITS).flatMap((kit) => kit.tools.map((tool) => toolsetOf(tool, kit)))),
];

/** `--toolkits`: known ids only, so a typo stops the start; an empty list means every toolkit. */
const toolkitIds = (value: string): string[] => {
  const ids = list(value).map(oneOf(TOOLKIT_IDS));
  return ids.length ? ids : [...TOOLKIT_IDS];
};

/**
 * `--account pager=eu,sheets=work`: which account each toolkit acts as, by label.
 * @throws InvalidSetting for a pair that is not `<toolkit>=<label>`, or a choice `choiceOf` refuses.
 */
function accountChoice(value: string): AccountChoice {
  const pairs = list(value).map((pair) => {
    const [toolkit = "", label, ...rest] = pair.split("=").map((part) => part.trim());
    if (label === undefined || rest.length)
      throw new InvalidSetting(`Each choice is <toolkit>=<label>, e.g. pager=eu (got "${pair}").`);
    return [toolkit, label] as const;
  });
  try {
    return choiceOf(pairs, TOOLKITS);
  } catch (error) {
    if (error instanceof AccountChoiceError) throw new InvalidSetting(error.message);
    throw error;
  }
}

/** The table's rows for serving: transport, tools, HTTP and its limits, upstream requests, logging. */
export const SERVING = {
  transport: inTransport({
    flag: "--transport <transport>",
    env: "MCP_TRANSPORT",
    parse: oneOf(["stdio", "http"] as const),
    default: "stdio",
    help: "stdio, or Streamable HTTP at /mcp (stateless)",
  }),
  host: inTransport({
    flag: "--host <host>",
    env: "MCP_HOST",
    parse: text,
    default: "127.0.0.1",
    help: "HTTP interface to bind",
  }),
  port: inTransport({
    flag: "--port <port>",
    env: "MCP_PORT",
    parse: integer(0, 65_535),
    default: 3000,
    help: "HTTP port (0 picks a free one)",
  }),
  shutdownGraceMs: inTransport({
    flag: "--shutdown-grace-ms <ms>",
    env: "MCP_SHUTDOWN_GRACE_MS",
    parse: integer(0, 3_600_000),
    default: 15_000,
    help: "how long calls in flight may run after SIGTERM, SIGINT or (stdio) stdin closing before they are aborted, in milliseconds",
  }),
  maxMessageBytes: inTransport({
    flag: "--max-message-bytes <bytes>",
    env: "MCP_MAX_MESSAGE_BYTES",
    parse: integer(1_000, 1_000_000_000),
    default: DEFAULT_MAX_MESSAGE_BYTES,
    help: "largest stdio message (one JSON-RPC line); a longer one gets a -32600 error and the server goes on",
  }),
  toolkits: inTools({
    flag: "--toolkits <ids>",
    env: "MCP_TOOLKITS",
    parse: toolkitIds,
    default: [...TOOLKIT_IDS],
    shown: "all",
    help: `comma-separated toolkits to load: ${TOOLKIT_IDS.join(", ")}`,
  }),
  tools: inTools({
    flag: "--tools <names>",
    env: "MCP_TOOLS",
    parse: list,
    default: [],
    help: "comma-separated tool names or globs, in either name form ('Pager.*', Pager_WhoAmI); none means every tool",
  }),
  excludeTools: inTools({
    flag: "--exclude-tools <names>",
    env: "MCP_EXCLUDE_TOOLS",
    parse: list,
    default: [],
    help: "tool names or globs to leave out (wins over --tools and --toolsets)",
  }),
  toolsets: inTools({
    flag: "--toolsets <names>",
    env: "MCP_TOOLSETS",
    parse: list,
    default: [],
    help: `comma-separated areas to load: ${TOOLSETS.join(", ")}`,
  }),
  readOnly: inTools({
    flag: "--read-only",
    env: "MCP_READ_ONLY",
    parse: yes,
    default: false,
    help: "register only tools whose readOnly hint is true (write tools are not registered at all)",
  }),
  accounts: inTools({
    flag: "--account <choices>",
    env: "MCP_ACCOUNTS",
    parse: accountChoice,
    help: "which signed-in account each toolkit (or provider: google) acts as, by its `login --label`: pager=eu,sheets=work (default: each provider's default account; a connector URL's <toolkit>@<label> wins; not with --credentials per-user)",
  }),
  toolNames: inTools({
    flag: "--tool-names <form>",
    env: "MCP_TOOL_NAMES",
    parse: oneOf(TOOL_NAME_FORMS),
    default: "underscore",
    help: "underscore (Pager_WhoAmI, accepted by every client) or dotted (the spec's Pager.WhoAmI); calls take either",
  }),
  catalog: inTools({
    flag: "--catalog <mode>",
    env: "MCP_CATALOG",
    parse: oneOf(CATALOG_MODES),
    default: "full",
    help: "full (list every tool) or search (list search_tools and call_tool only, for clients with small tool budgets)",
  }),
  apps: inTools({
    flag: "--apps <switch>",
    env: "MCP_APPS",
    parse: oneOf(["on", "off"] as const),
    default: "on",
    help: "on: MCP Apps views (incidents, on call, sheet grid, Drive picker, metrics) for clients that render them; off: text only for every client",
  }),
  sandbox: inTools({
    flag: "--sandbox",
    env: "MCP_SANDBOX",
    parse: yes,
    default: false,
    help: "answer from built-in fake upstreams (no credentials needed)",
  }),
  maxResultBytes: inTools({
    flag: "--max-result-bytes <bytes>",
    env: "MCP_MAX_RESULT_BYTES",
    parse: integer(1_000, 100_000_000),
    default: 100_000,
    help: "cap on one result's JSON size; a larger result is cut with a marker",
  }),
  publicUrl: inHttp({
    flag: "--public-url <url>",
    env: "MCP_PUBLIC_URL",
    parse: text,
    help: "externally visible base URL (behind a proxy; https for a team)",
  }),
  allowedHosts: inHttp({
    flag: "--allowed-hosts <hosts>",
    env: "MCP_ALLOWED_HOSTS",
    parse: list,
    default: [],
    help: "extra Host names accepted over HTTP (loopback names always are)",
  }),
  allowedOrigins: inHttp({
    flag: "--allowed-origins <origins>",
    env: "MCP_ALLOWED_ORIGINS",
    parse: list,
    default: [],
    help: "browser Origins accepted over HTTP, given CORS headers",
  }),
  maxBodyBytes: inHttpLimits({
    flag: "--max-body-bytes <bytes>",
    env: "MCP_MAX_BODY_BYTES",
    parse: integer(1_000, 100_000_000),
    default: 1_000_000,
    help: "largest HTTP request body (413 beyond)",
  }),
  requestTimeoutMs: inHttpLimits({
    flag: "--request-timeout-ms <ms>",
    env: "MCP_REQUEST_TIMEOUT_MS",
    parse: integer(100, 3_600_000),
    default: 120_000,
    help: "HTTP request time limit (504 beyond), in milliseconds",
  }),
  headerTimeoutMs: inHttpLimits({
    flag: "--header-timeout-ms <ms>",
    env: "MCP_HEADER_TIMEOUT_MS",
    parse: integer(100, 600_000),
    default: 10_000,
    help: "longest a new HTTP connection may stay silent, and a request may take from its first byte to its last header, in milliseconds",
  }),
  bodyTimeoutMs: inHttpLimits({
    flag: "--body-timeout-ms <ms>",
    env: "MCP_BODY_TIMEOUT_MS",
    parse: integer(100, 3_600_000),
    default: 30_000,
    help: "time for an HTTP request body: the whole request must arrive within the header and body timeouts of its first byte, in milliseconds",
  }),
  keepAliveTimeoutMs: inHttpLimits({
    flag: "--keep-alive-timeout-ms <ms>",
    env: "MCP_KEEP_ALIVE_TIMEOUT_MS",
    parse: integer(100, 600_000),
    default: 5_000,
    help: "longest an HTTP connection may sit idle between requests, in milliseconds",
  }),
  maxConnections: inHttpLimits({
    flag: "--max-connections <count>",
    env: "MCP_MAX_CONNECTIONS",
    parse: integer(1, 1_000_000),
    default: 512,
    help: "most HTTP connections open at once (keep it under the file-descriptor limit, ulimit -n)",
  }),
  maxConnectionsPerAddress: inHttpLimits({
    flag: "--max-connections-per-address <count>",
    env: "MCP_MAX_CONNECTIONS_PER_ADDRESS",
    parse: integer(1, 1_000_000),
    shown: "a quarter of --max-connections",
    help: "most HTTP connections open at once from one client address, so one client cannot take them all (behind a proxy every client shares its address: raise it to --max-connections there)",
  }),
  upstream: {
    timeoutMs: inUpstream({
      flag: "--upstream-timeout-ms <ms>",
      env: "MCP_UPSTREAM_TIMEOUT_MS",
      parse: integer(100, 3_600_000),
      default: DEFAULT_UPSTREAM_LIMITS.timeoutMs,
      help: "time limit of one upstream request attempt, its answer included, in milliseconds",
    }),
    maxBytes: inUpstream({
      flag: "--upstream-max-bytes <bytes>",
      env: "MCP_UPSTREAM_MAX_BYTES",
      parse: integer(1_000, 1_000_000_000),
      default: DEFAULT_UPSTREAM_LIMITS.maxBytes,
      help: "largest upstream answer read; a larger one is an upstream_error",
    }),
    maxRedirects: inUpstream({
      flag: "--upstream-max-redirects <count>",
      env: "MCP_UPSTREAM_MAX_REDIRECTS",
      parse: integer(0, 10),
      default: DEFAULT_UPSTREAM_LIMITS.maxRedirects,
      help: "same-origin redirects followed for a request without a body (0: none); cross-origin ones and those of a body are always refused",
    }),
  },
  logLevel: inLogging({
    flag: "--log-level <level>",
    env: "MCP_LOG_LEVEL",
    parse: oneOf(["debug", "info", "warn", "error"] as const),
    default: "warn",
    help: "stderr log level (JSON lines)",
  }),
  metricsPort: inTelemetry({
    flag: "--metrics-port <port>",
    env: "MCP_METRICS_PORT",
    parse: integer(0, 65_535),
    help: "serve the metrics in Prometheus' text format at /metrics on this port, a listener of its own (0 picks a free one); none by default",
  }),
  metricsHost: inTelemetry({
    flag: "--metrics-host <host>",
    env: "MCP_METRICS_HOST",
    parse: text,
    default: "127.0.0.1",
    help: "interface the metrics listener binds (0.0.0.0 for a Prometheus in another container or pod)",
  }),
};
