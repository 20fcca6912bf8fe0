// The names OpenTelemetry's semantic conventions give what the server records, in one place.
// MCP: `docs/gen-ai/mcp.md` of open-telemetry/semantic-conventions-genai (status Development,
// unreleased; the `mcp.*` names moved there from the main repository); the attributes it borrows
// (error, network, client, server, HTTP, URL, database) are the main repository's, v1.41.
// `@opentelemetry/semantic-conventions` is not used for them: its `ATTR_MCP_*` constants are
// deprecated for that move, and the rest are a handful of strings.

export const MCP_METHOD_NAME = "mcp.method.name";
export const MCP_PROTOCOL_VERSION = "mcp.protocol.version";
export const MCP_RESOURCE_URI = "mcp.resource.uri";
export const JSONRPC_REQUEST_ID = "jsonrpc.request.id";
export const RPC_RESPONSE_STATUS_CODE = "rpc.response.status_code";
export const GEN_AI_TOOL_NAME = "gen_ai.tool.name";
export const GEN_AI_OPERATION_NAME = "gen_ai.operation.name";
export const ERROR_TYPE = "error.type";
export const NETWORK_TRANSPORT = "network.transport";
export const NETWORK_PROTOCOL_NAME = "network.protocol.name";
export const NETWORK_PROTOCOL_VERSION = "network.protocol.version";
export const CLIENT_ADDRESS = "client.address";
export const CLIENT_PORT = "client.port";
export const SERVER_ADDRESS = "server.address";
export const SERVER_PORT = "server.port";
/** A person by a stable stand-in, never their identity (the general `enduser` attributes). */
export const ENDUSER_PSEUDO_ID = "enduser.pseudo.id";

export const HTTP_REQUEST_METHOD = "http.request.method";
export const HTTP_RESPONSE_STATUS_CODE = "http.response.status_code";
export const HTTP_REQUEST_RESEND_COUNT = "http.request.resend_count";
export const URL_TEMPLATE = "url.template";

export const DB_SYSTEM_NAME = "db.system.name";
export const DB_OPERATION_NAME = "db.operation.name";
export const DB_COLLECTION_NAME = "db.collection.name";

/** Ours, for what the conventions do not name: an API method id when a request has no URL template. */
export const UPSTREAM_OPERATION = "toolkits.upstream.operation";
export const RATE_LIMIT_BUDGET = "toolkits.rate_limit.budget";
export const RATE_LIMIT_OUTCOME = "toolkits.rate_limit.outcome";
export const AUTH_STEP = "toolkits.oauth.step";
export const AUTH_OUTCOME = "toolkits.oauth.outcome";

/** `error.type`'s fallback where nothing more precise applies. */
export const OTHER = "_OTHER";

/** The MCP server metric, and the bucket boundaries the conventions give it (seconds). */
export const MCP_SERVER_OPERATION_DURATION = "mcp.server.operation.duration";
export const MCP_DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
/** The HTTP client metric and its conventional boundaries (seconds). */
export const HTTP_CLIENT_REQUEST_DURATION = "http.client.request.duration";
export const HTTP_DURATION_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
];
/** The database client metric (the store), with the database conventions' boundaries (seconds). */
export const DB_CLIENT_OPERATION_DURATION = "db.client.operation.duration";
export const DB_DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10];
/** Ours: how long a rate-limit budget made calls wait, and the steps of the built-in authorization server. */
export const RATE_LIMIT_WAIT_DURATION = "toolkits.rate_limit.wait.duration";
export const RATE_LIMIT_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10];
export const AUTH_STEPS = "toolkits.oauth.steps";

/**
 * The methods `mcp.method.name` takes as they are: the conventions' well-known values and the
 * 2026-07-28 revision's. Any other method a client sends is recorded as `_OTHER`, so what a client
 * makes up never becomes a span name or a metric series of its own.
 */
export const KNOWN_METHODS: ReadonlySet<string> = new Set([
  "completion/complete",
  "elicitation/create",
  "initialize",
  "logging/setLevel",
  "notifications/cancelled",
  "notifications/elicitation/complete",
  "notifications/initialized",
  "notifications/message",
  "notifications/progress",
  "notifications/prompts/list_changed",
  "notifications/resources/list_changed",
  "notifications/resources/updated",
  "notifications/roots/list_changed",
  "notifications/subscriptions/acknowledged",
  "notifications/tasks/status",
  "notifications/tools/list_changed",
  "ping",
  "prompts/get",
  "prompts/list",
  "resources/list",
  "resources/read",
  "resources/subscribe",
  "resources/templates/list",
  "resources/unsubscribe",
  "roots/list",
  "sampling/createMessage",
  "server/discover",
  "subscriptions/listen",
  "tasks/cancel",
  "tasks/get",
  "tasks/list",
  "tasks/result",
  "tasks/update",
  "tools/call",
  "tools/list",
]);

/** The methods whose `params.uri` names a resource (`mcp.resource.uri`). */
export const RESOURCE_METHODS: ReadonlySet<string> = new Set([
  "resources/read",
  "resources/subscribe",
  "resources/unsubscribe",
  "notifications/resources/updated",
]);

/** HTTP methods `http.request.method` takes as they are; others are `_OTHER`. */
export const HTTP_METHODS: ReadonlySet<string> = new Set([
  "CONNECT",
  "DELETE",
  "GET",
  "HEAD",
  "OPTIONS",
  "PATCH",
  "POST",
  "PUT",
  "TRACE",
]);
