import { createHash } from "node:crypto";
import {
  createServer,
  type IncomingMessage,
  type Server as NodeServer,
  type ServerResponse,
} from "node:http";
import { type AddressInfo, Server as NetServer } from "node:net";
import {
  type AuthInfo,
  bearerAuthChallengeResponse,
  createMcpHandler,
  localhostAllowedHostnames,
  ProtocolError,
} from "@modelcontextprotocol/server";
import type { Logger } from "@toolkits/core";
import type { ToolRegistry } from "@toolkits/core/mcp";
import {
  authConfigFromEnv,
  authenticate,
  type HttpAuthConfig,
  KeySetUnavailable,
  perUserProblem,
  principalOf,
  tokenVerifier,
} from "./http-auth.js";
import type { ServerOptions } from "./options.js";
import { type Pages, pathOf, readBody, serveFetch } from "./pages.js";
import { createServerFor } from "./server.js";
import type { Team, TeamServing } from "./team/index.js";
import { isConnectPath } from "./team/paths.js";

export interface HttpOptions {
  host: string;
  port: number;
  /** Host names accepted in the `Host` header, besides the loopback names. */
  allowedHosts: string[];
  /** Origins accepted in the `Origin` header; requests without one (non-browser clients) pass. */
  allowedOrigins: string[];
  auth?: HttpAuthConfig;
  /** Largest accepted request body, in bytes. */
  maxBodyBytes: number;
  /** Longest a request may take before it is answered 504 and its tool call aborted, in milliseconds. */
  requestTimeoutMs: number;
  /**
   * Longest a new connection may stay silent, and a request may take from its first byte to its
   * last header, in milliseconds; then Node answers 408 and closes the connection.
   */
  headerTimeoutMs: number;
  /**
   * Time for a request's body, in milliseconds: a request not complete `headerTimeoutMs +
   * bodyTimeoutMs` after its first byte is answered 408 and its connection closed.
   */
  bodyTimeoutMs: number;
  /** Longest a connection may sit idle between requests, in milliseconds (Node adds 1 s). */
  keepAliveTimeoutMs: number;
  /** Most connections open at once; one more is closed as soon as it is accepted. */
  maxConnections: number;
  /** Longest calls in flight may run after `close()` before they are answered 503, in milliseconds. */
  shutdownGraceMs: number;
  /** The server's externally visible base URL (behind a proxy); default: the bound address. */
  publicUrl?: string;
  /** The toolkits' web pages (e.g. the sheets file picker), served outside MCP authentication. */
  pages?: Pages;
  /** Per-user serving: every call acts as its caller, who connects accounts at `/connect`. */
  team?: TeamServing;
}

const MCP_PATH = "/mcp";
const METADATA_PATH = "/.well-known/oauth-protected-resource/mcp";
const LOOPBACK_HOSTS = localhostAllowedHostnames();
/** The loopback names as Host headers and origins give them, and as `--host` may (`::1` unbracketed). */
const LOOPBACK_BINDS = [...LOOPBACK_HOSTS, "::1"];
const isLoopback = (host: string): boolean => LOOPBACK_BINDS.includes(host);

/** A bound HTTP server, waiting for the registry it will serve. */
export interface ListeningHttp {
  server: NodeServer;
  /** The server's externally visible base URL: `--public-url`, else the bound address. */
  publicUrl: string;
  /** The authentication it checks, from the environment. */
  auth: HttpAuthConfig | undefined;
  /**
   * Starts answering requests from `registry`, with the toolkits' `pages` outside authentication,
   * and, per user, `team`'s connect pages, with every call made as its caller.
   */
  serve(registry: ToolRegistry, pages?: Pages, team?: TeamServing): void;
  /**
   * Shuts down politely: stops accepting connections, answers any new request 503 and every answer
   * from then on with `Connection: close`, and lets calls in flight finish for up to
   * `shutdownGraceMs`, then answers those still running 503 and aborts them. Resolves once every
   * connection has closed.
   */
  close(): Promise<void>;
}

/**
 * Binds the HTTP server first, so what depends on its address (the resource metadata, the pages'
 * URL the tools hand out, the origin the pages post back from) is built knowing it.
 *
 * Once serving, MCP is answered at `/mcp` for every protocol revision the SDK speaks (2026-07-28
 * and the 2025 revisions, told apart per request), statelessly, with one cheap server per request
 * over the registry built at start-up. Every request passes one admission path: Host, Origin, then
 * by path `/healthz` (no authentication), the resource metadata, `/mcp` (bearer token, then body
 * size, type and JSON) or a toolkit page; anything else is answered 404 without reading its body.
 * Connections are bounded before any request: see `connectionLimits`.
 * @throws Error when binding a non-loopback interface without authentication configured.
 */
async function bindHttp(
  options: Omit<HttpOptions, "pages" | "team">,
  logger: Logger,
): Promise<ListeningHttp> {
  if (!isLoopback(options.host) && !options.auth) {
    throw new Error(
      `Refusing to serve ${options.host} without authentication: set MCP_HTTP_BEARER_TOKENS or MCP_OAUTH_ISSUER, MCP_OAUTH_AUDIENCE and MCP_OAUTH_JWKS_URL.`,
    );
  }
  const server = createServer(connectionLimits(options));
  limitConnections(server, options, logger);
  server.listen(options.port, options.host);
  await new Promise<void>((resolve, reject) => server.once("listening", resolve).once("error", reject));
  const publicUrl = options.publicUrl ?? localUrl(server);
  const drain = new Drain();
  return {
    server,
    publicUrl,
    auth: options.auth,
    serve(registry, pages, team) {
      const admit = admission(registry, { ...options, pages, team, publicUrl }, drain, logger);
      server.on("request", (req: IncomingMessage, res: ServerResponse) => {
        drain.track(res);
        admit(req, res).catch((error: unknown) => {
          const message = error instanceof Error ? error.message : String(error);
          // A client gone mid-request (or cut off by a time limit) is nobody's fault here.
          if (req.socket.destroyed) return logger.debug("HTTP request ended early", { error: message });
          logger.error("HTTP request failed", { error: message });
          if (!res.headersSent) rpcError(res, 500, "Internal error");
        });
      });
    },
    close: () => drain.close(server, options.shutdownGraceMs),
  };
}

/**
 * Node's own limits, as verified with real sockets (Node 20 and 22): `headersTimeout` answers 408
 * and closes a new connection that sends nothing that long after it opened, and a request whose
 * headers are not complete that long after its first byte; `requestTimeout` does the same to one
 * whose body is not complete that long after its first byte. Both are checked every
 * `connectionsCheckingInterval` (30 s by default, which made them that much later).
 * `keepAliveTimeout` closes a connection idle between requests (Node adds 1 s to what it advertises).
 */
function connectionLimits(options: Omit<HttpOptions, "pages" | "team">) {
  return {
    headersTimeout: options.headerTimeoutMs,
    requestTimeout: options.headerTimeoutMs + options.bodyTimeoutMs,
    keepAliveTimeout: options.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.min(1_000, Math.ceil(options.headerTimeoutMs / 4)),
  };
}

/**
 * Caps open connections: Node closes one over `maxConnections` as soon as it is accepted. Warns
 * once each time the cap is reached, not for every connection refused.
 */
function limitConnections(
  server: NodeServer,
  options: Omit<HttpOptions, "pages" | "team">,
  logger: Logger,
): void {
  server.maxConnections = options.maxConnections;
  let full = false;
  server.on("connection", () => {
    full = false;
  });
  server.on("drop", () => {
    if (!full)
      logger.warn("refusing connections: --max-connections reached", { max: options.maxConnections });
    full = true;
  });
}

type Admit = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

function admission(
  registry: ToolRegistry,
  options: HttpOptions & { publicUrl: string },
  drain: Drain,
  logger: Logger,
): Admit {
  const hosts = [...LOOPBACK_HOSTS, ...options.allowedHosts];
  const origin = originRule(options);
  const crossOrigin = new Set(options.allowedOrigins);
  const mcp = mcpEndpoint(registry, options, drain.graceOver, logger);
  const metadata = JSON.stringify({
    resource: `${options.publicUrl}${MCP_PATH}`,
    authorization_servers: options.auth?.oauth ? [options.auth.oauth.issuer] : [],
    bearer_methods_supported: ["header"],
  });
  return async (req, res) => {
    if (drain.draining) return rpcError(res, 503, "The server is shutting down.", { connection: "close" });
    const bodyRead = closeUntilRead(req, res);
    const host = hostname(req.headers.host);
    if (!host || !hosts.includes(host))
      return rpcError(res, 403, `Invalid Host: ${host ?? req.headers.host ?? ""}`);
    const browser = req.headers.origin;
    if (browser && !origin(browser)) {
      return rpcError(
        res,
        403,
        `Origin ${browser} is not allowed. Add it to MCP_ALLOWED_ORIGINS to allow it.`,
      );
    }
    if (browser && crossOrigin.has(browser)) allowCrossOrigin(res, browser);
    if (browser && req.method === "OPTIONS" && req.headers["access-control-request-method"])
      return preflight(req, res, browser, crossOrigin.has(browser));
    const path = pathOf(req);
    if (path === MCP_PATH) return mcp(req, res, bodyRead);
    if (path === "/healthz" && req.method === "GET")
      return json(res, 200, { status: "ok", tools: registry.listing.length });
    if (path === METADATA_PATH && options.auth && req.method === "GET") return json(res, 200, metadata);
    if (options.pages?.owns(path)) return options.pages.serve(req, res);
    if (options.team && isConnectPath(path)) return serveFetch(options.team.pages, req, res);
    res.writeHead(404, { "content-type": "text/plain" }).end("Not found");
  };
}

/**
 * Until the body has been read, an answer closes the connection: to reuse it, Node would first
 * read and discard the rest of the body, however large. Returns what keeps it open once read.
 */
function closeUntilRead(req: IncomingMessage, res: ServerResponse): () => void {
  const keepAlive = res.shouldKeepAlive;
  const hasBody = req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"]) > 0;
  if (hasBody) res.shouldKeepAlive = false;
  return () => {
    res.shouldKeepAlive = keepAlive;
  };
}

/** The request headers a browser page may send cross-origin: MCP's own and those it needs. */
const CORS_REQUEST_HEADERS = new Set([
  "authorization",
  "content-type",
  "accept",
  "last-event-id",
  "mcp-protocol-version",
  "mcp-method",
  "mcp-name",
  "mcp-session-id",
]);
/** The answer headers a cross-origin page needs to read: the OAuth challenge and MCP's own. */
const CORS_EXPOSED_HEADERS = "WWW-Authenticate, Retry-After, Mcp-Session-Id, Mcp-Protocol-Version";

/** Lets a page on an origin of MCP_ALLOWED_ORIGINS read the answer, not just send the request. */
function allowCrossOrigin(res: ServerResponse, origin: string): void {
  res.setHeader("access-control-allow-origin", origin);
  res.setHeader("access-control-expose-headers", CORS_EXPOSED_HEADERS);
  res.setHeader("vary", "Origin");
}

/**
 * Answers a CORS preflight: 204 for an origin of MCP_ALLOWED_ORIGINS, allowing the methods `/mcp`
 * answers and, of the headers asked for, MCP's (`Mcp-Param-*` included); 403 for any other origin,
 * loopback ones included, which may call but not read answers cross-origin.
 */
function preflight(req: IncomingMessage, res: ServerResponse, origin: string, allowed: boolean): void {
  if (!allowed) {
    const message = `Origin ${origin} may not call from another origin. Add it to MCP_ALLOWED_ORIGINS to allow it.`;
    rpcError(res, 403, message);
    return;
  }
  const asked = String(req.headers["access-control-request-headers"] ?? "")
    .split(",")
    .map((name) => name.trim().toLowerCase());
  const headers = asked.filter((name) => CORS_REQUEST_HEADERS.has(name) || name.startsWith("mcp-param-"));
  res.writeHead(204, {
    "access-control-allow-methods": "GET, POST, DELETE",
    "access-control-allow-headers": headers.join(", "),
    "access-control-max-age": "600",
    vary: "Origin, Access-Control-Request-Headers",
  });
  res.end();
}

/**
 * Which browser origins may call: those in MCP_ALLOWED_ORIGINS, the server's own (its pages post
 * back to it) and, when bound to loopback, any loopback origin on any port.
 */
function originRule(options: HttpOptions & { publicUrl: string }): (origin: string) => boolean {
  const exact = new Set([...options.allowedOrigins, new URL(options.publicUrl).origin]);
  const loopback = isLoopback(options.host);
  return (origin) => {
    if (exact.has(origin)) return true;
    if (!loopback) return false;
    try {
      return LOOPBACK_HOSTS.includes(new URL(origin).hostname);
    } catch {
      return false;
    }
  };
}

/**
 * `/mcp`: bearer token, then the body's size, type and JSON, then the SDK's handler, which serves
 * both protocol eras. A plain 2025-era tool call skips the SDK (see `plainLegacyCall`).
 */
function mcpEndpoint(
  registry: ToolRegistry,
  options: HttpOptions & { publicUrl: string },
  graceOver: AbortSignal,
  logger: Logger,
): (req: IncomingMessage, res: ServerResponse, bodyRead: () => void) => Promise<void> {
  const calls = new CallsInFlight();
  const onerror = (error: Error) => logger.debug("MCP request refused", { error: error.message });
  const { team } = options;
  const handler = createMcpHandler(
    ({ authInfo, requestInfo }) => {
      const tracked = calls.tracking(registry, callerOf(authInfo), requestInfo?.signal);
      return createServerFor(team ? asCaller(tracked, team, authInfo, requestInfo?.headers) : tracked);
    },
    { onerror, maxRequestBodySize: options.maxBodyBytes },
  );
  const verifier = options.auth && tokenVerifier(options.auth, logger);
  const resourceMetadataUrl = `${options.publicUrl}${METADATA_PATH}`;
  return async (req, res, bodyRead) => {
    let authInfo: AuthInfo | undefined;
    if (verifier) {
      try {
        authInfo = await authenticate(req.headers.authorization, verifier, resourceMetadataUrl);
      } catch (error) {
        if (error instanceof KeySetUnavailable)
          return rpcError(res, 503, error.message, { "retry-after": String(error.retryAfterSeconds) });
        return sendResponse(res, bearerAuthChallengeResponse(error, { resourceMetadataUrl }));
      }
    }
    if (team && !principalOf(authInfo)) {
      return rpcError(
        res,
        403,
        "This server acts for each person separately, but your access token names nobody (it has no subject).",
      );
    }
    let body: unknown;
    if (req.method === "POST") {
      const read = await readJson(req, options.maxBodyBytes);
      if ("status" in read) return rpcError(res, read.status, read.message);
      bodyRead();
      body = read.body;
      const repeated = repeatedRequestId(body);
      if (repeated !== undefined) {
        const message = `Two requests in this batch have the id ${JSON.stringify(repeated)}; each needs its own.`;
        return rpcError(res, 400, message, {}, INVALID_REQUEST);
      }
      const cancelled = cancelledRequestId(body);
      if (cancelled !== undefined) calls.cancel(callerOf(authInfo), cancelled);
      if (team && authInfo) await rememberClient(team, authInfo, body, logger);
    }
    const signal = exchangeSignal(res, options.requestTimeoutMs, graceOver);
    const call = plainLegacyCall(body, req.headers);
    if (call) {
      const tracked = calls.tracking(registry, callerOf(authInfo), signal);
      const served = team ? asCaller(tracked, team, authInfo, req.headers) : tracked;
      const answer = await served
        .call(call.name, call.arguments, { requestId: call.id, signal, notify: noNotify })
        .then(
          (result) => ({ jsonrpc: "2.0", id: call.id, result }),
          (error: unknown) => {
            // The one error a tool call answers as a JSON-RPC error: a 2025 URL elicitation.
            if (!(error instanceof ProtocolError)) throw error;
            return {
              jsonrpc: "2.0",
              id: call.id,
              error: { code: error.code, message: error.message, data: error.data },
            };
          },
        );
      if (!res.headersSent) json(res, 200, answer);
      return;
    }
    await sendResponse(res, await handler.fetch(webRequest(req, signal), { authInfo, parsedBody: body }));
  };
}

/**
 * The registry as the person behind `authInfo` calls it: every call runs as them, and a 2025
 * client's URL elicitation support (not sent with each request, unlike 2026-07-28's) is what it
 * declared at its last `initialize`.
 */
function asCaller(
  registry: ToolRegistry,
  team: TeamServing,
  authInfo: AuthInfo | undefined,
  headers: Headers | IncomingMessage["headers"] | undefined,
): ToolRegistry {
  const principal = principalOf(authInfo);
  const version =
    headers instanceof Headers ? headers.get("mcp-protocol-version") : headers?.["mcp-protocol-version"];
  const legacy = isLegacyRevision(version);
  return {
    ...registry,
    call: async (name, args, extra) => {
      const remembered =
        legacy && !extra.urlElicitation && principal && authInfo
          ? await team.recallClient(principal, authInfo.clientId).catch(() => false)
          : false;
      return registry.call(name, args, {
        ...extra,
        principal,
        urlElicitation: extra.urlElicitation ?? (remembered ? "error" : undefined),
      });
    },
  };
}

/** Records whether the client in an `initialize` request declared URL elicitation. */
async function rememberClient(
  team: TeamServing,
  authInfo: AuthInfo,
  body: unknown,
  logger: Logger,
): Promise<void> {
  const message = body as {
    method?: unknown;
    params?: { capabilities?: { elicitation?: { url?: unknown } } };
  };
  const principal = principalOf(authInfo);
  if (message?.method !== "initialize" || !principal) return;
  const url = message.params?.capabilities?.elicitation?.url !== undefined;
  await team.rememberClient(principal, authInfo.clientId, url).catch((error: unknown) => {
    logger.warn("could not remember the client's capabilities", { error: (error as Error).message });
  });
}

const INVALID_REQUEST = -32600;

/**
 * The first id two requests of a JSON-RPC batch share, if any: the SDK answers requests by id,
 * so it would send only one of the two answers.
 */
function repeatedRequestId(body: unknown): string | number | undefined {
  if (!Array.isArray(body)) return undefined;
  const seen = new Set<string>();
  for (const message of body) {
    const { id, method } = (isPlainObject(message) ? message : {}) as { id?: unknown; method?: unknown };
    if (typeof method !== "string" || (typeof id !== "string" && typeof id !== "number")) continue;
    // 1 and "1" are different ids.
    const key = `${typeof id} ${id}`;
    if (seen.has(key)) return id;
    seen.add(key);
  }
  return undefined;
}

const noNotify = async () => {};
const LEGACY_REVISIONS = ["2025-11-25", "2025-06-18", "2025-03-26"];
/** Whether a request's `Mcp-Protocol-Version` header is a 2025 revision's, or absent (as 2025-03-26 allows). */
const isLegacyRevision = (version: string | string[] | null | undefined): boolean =>
  version === undefined || version === null || LEGACY_REVISIONS.includes(String(version));

/**
 * The tool call in `body` when it is the commonest request of all: a single 2025-era `tools/call`
 * (no 2026-07-28 `_meta` claim or header) asking for no progress, from a client that accepts JSON.
 * The SDK's stateless legacy path answers it with nothing but the tool's result, and building a
 * server, a transport and web-standard request and response objects for it costs more than the
 * rest of the call, so it is answered straight from the registry. Undefined for anything else,
 * malformed requests included, which the SDK answers.
 */
function plainLegacyCall(
  body: unknown,
  headers: IncomingMessage["headers"],
): { id: string | number; name: string; arguments: unknown } | undefined {
  if (!isLegacyRevision(headers["mcp-protocol-version"])) return undefined;
  const accept = String(headers.accept ?? "");
  if (!accept.includes("application/json") || !accept.includes("text/event-stream")) return undefined;
  const message = body as { jsonrpc?: unknown; method?: unknown; id?: unknown; params?: unknown } | null;
  if (message?.jsonrpc !== "2.0" || message.method !== "tools/call") return undefined;
  const { id } = message;
  if (typeof id !== "string" && typeof id !== "number") return undefined;
  const params = message.params as { name?: unknown; arguments?: unknown; _meta?: unknown } | undefined;
  if (typeof params?.name !== "string" || !isPlainObject(params.arguments ?? {})) return undefined;
  if (params._meta !== undefined && (!isPlainObject(params._meta) || Object.keys(params._meta).length))
    return undefined;
  return { id, name: params.name, arguments: params.arguments };
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The request headers the SDK's handlers read: content negotiation and MCP's own. */
const SDK_HEADERS = /^(accept|content-type|mcp-.*|last-event-id)$/;

/**
 * Aborts when the client goes away before the answer, when the request takes longer than
 * `timeoutMs` (then answered 504), or when `graceOver` aborts during a shutdown (then answered
 * 503), so the call and its upstream requests stop.
 */
function exchangeSignal(res: ServerResponse, timeoutMs: number, graceOver: AbortSignal): AbortSignal {
  const controller = new AbortController();
  const stop = (status: number, message: string) => {
    if (!res.headersSent) rpcError(res, status, message);
    else res.destroy();
    controller.abort();
  };
  const timer = setTimeout(() => stop(504, `The request took longer than ${timeoutMs} ms.`), timeoutMs);
  const shutdown = () => stop(503, "The server shut down before the request finished.");
  if (graceOver.aborted) shutdown();
  else graceOver.addEventListener("abort", shutdown, { once: true });
  res.once("close", () => {
    clearTimeout(timer);
    graceOver.removeEventListener("abort", shutdown);
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

/** The web-standard request the SDK's handler takes, without a body (it gets the parsed one). */
function webRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string" && SDK_HEADERS.test(name)) headers.set(name, value);
  }
  return new Request(`http://${req.headers.host ?? "localhost"}${MCP_PATH}`, {
    method: req.method,
    headers,
    signal,
  });
}

/**
 * Tool calls in flight over HTTP by caller and JSON-RPC id. A 2025-era client cancels with a
 * `notifications/cancelled` POST, which a stateless server receives apart from the call it names;
 * this is how that POST reaches the call. A call also stops when its HTTP request goes away.
 */
class CallsInFlight {
  private readonly calls = new Map<string, Set<AbortController>>();

  tracking(registry: ToolRegistry, caller: string, requestSignal: AbortSignal | undefined): ToolRegistry {
    return {
      ...registry,
      call: (name, args, extra) => {
        const key = `${caller} ${String(extra.requestId)}`;
        const controller = new AbortController();
        const set = this.calls.get(key) ?? new Set();
        this.calls.set(key, set.add(controller));
        const signals = [extra.signal, controller.signal, ...(requestSignal ? [requestSignal] : [])];
        return registry.call(name, args, { ...extra, signal: AbortSignal.any(signals) }).finally(() => {
          set.delete(controller);
          if (!set.size) this.calls.delete(key);
        });
      },
    };
  }

  cancel(caller: string, requestId: string | number): void {
    for (const controller of this.calls.get(`${caller} ${String(requestId)}`) ?? []) controller.abort();
  }
}

/** Who is calling, as far as cancellation goes: a digest of the bearer token, or "" without one. */
const callerOf = (auth: AuthInfo | undefined): string =>
  auth ? createHash("sha256").update(auth.token).digest("base64url") : "";

/** The id of the request a `notifications/cancelled` message names, if `body` is one. */
function cancelledRequestId(body: unknown): string | number | undefined {
  const message = body as { method?: unknown; params?: { requestId?: unknown } } | null;
  if (message?.method !== "notifications/cancelled") return undefined;
  const id = message.params?.requestId;
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}

type ReadOutcome = { body: unknown } | { status: number; message: string };

/** Reads a JSON body of at most `maxBytes`, refusing a larger one unread when its length is declared. */
async function readJson(req: IncomingMessage, maxBytes: number): Promise<ReadOutcome> {
  if (
    !String(req.headers["content-type"] ?? "")
      .toLowerCase()
      .startsWith("application/json")
  ) {
    return { status: 415, message: "Content-Type must be application/json." };
  }
  const body = await readBody(req, maxBytes);
  if (!body) return { status: 413, message: "Request body too large." };
  try {
    return { body: JSON.parse(body.toString("utf8")) };
  } catch {
    return { status: 400, message: "Request body is not valid JSON." };
  }
}

/**
 * The Host header's host name as URL parsing gives it (`[::1]` for IPv6), or undefined when it is
 * not a plain `host[:port]` (user info such as `evil.example@127.0.0.1` included).
 */
function hostname(host: string | undefined): string | undefined {
  if (!host || /[@/\\?#\s]/.test(host)) return undefined;
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return undefined;
  }
}

function rpcError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
  code = -32000,
): void {
  json(res, status, { jsonrpc: "2.0", error: { code, message }, id: null }, headers);
}

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(typeof body === "string" ? body : JSON.stringify(body));
}

/** Headers about the connection, not the answer: Node writes its own (`Connection: close` included). */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding"]);

/** Writes a web-standard response, streaming an event stream as it comes; a finished exchange is left alone. */
async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
  if (res.headersSent || res.destroyed) return void response.body?.cancel().catch(() => {});
  const headers = [...response.headers].filter(([name]) => !HOP_BY_HOP.has(name));
  res.writeHead(response.status, Object.fromEntries(headers));
  if (!response.body) return void res.end();
  if (!response.headers.get("content-type")?.includes("text/event-stream"))
    return void res.end(await response.text());
  for await (const chunk of response.body) {
    if (res.destroyed) break;
    res.write(chunk);
  }
  res.end();
}

/** The URL a local client reaches the bound server at, e.g. `http://127.0.0.1:3000`. */
function localUrl(server: NodeServer): string {
  const { address, port } = server.address() as AddressInfo;
  return `http://${address.includes(":") ? `[${address}]` : address}:${port}`;
}

/**
 * Shutdown, shared by every exchange: once `close` is called, new requests are refused and every
 * answer closes its connection; when the grace ends, `graceOver` aborts what is still running.
 */
class Drain {
  draining = false;
  private readonly grace = new AbortController();
  readonly graceOver = this.grace.signal;
  private readonly answering = new Set<ServerResponse>();

  track(res: ServerResponse): void {
    this.answering.add(res);
    res.once("close", () => this.answering.delete(res));
  }

  close(server: NodeServer, graceMs: number): Promise<void> {
    this.draining = true;
    for (const res of this.answering) if (!res.headersSent) res.setHeader("connection", "close");
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.grace.abort();
        server.closeIdleConnections();
        // The 503s just written get a moment to reach their clients; a client that does not read
        // its answer must not hold the exit.
        setTimeout(() => server.closeAllConnections(), FLUSH_MS).unref();
      }, graceMs);
      // http.Server#close would also drop idle keep-alive connections at once, resetting clients
      // whose next request is already on its way. net.Server#close only stops accepting: an idle
      // connection then gets its next request answered 503 with Connection: close, or closes at
      // its keep-alive timeout.
      NetServer.prototype.close.call(server, () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

/** How long answers written when the shutdown grace ends may take to flush, in milliseconds. */
const FLUSH_MS = 1_000;

/**
 * Binds with authentication from the environment and serves, once given the registry, until
 * SIGTERM or SIGINT; then drains (see `ListeningHttp.close`), closes the team's store and exits with 0.
 * @throws Error for weak or incomplete authentication settings (see `authConfigFromEnv`), or, with
 *   `team`, authentication that cannot tell people apart (see `perUserProblem`).
 */
export async function listenHttp(
  options: ServerOptions,
  logger: Logger,
  team?: Team,
): Promise<ListeningHttp> {
  const policy = { loopback: isLoopback(options.host), warn: (message: string) => logger.warn(message) };
  const auth = authConfigFromEnv(process.env, policy);
  const problem = team && perUserProblem(auth);
  if (problem) throw new Error(problem);
  const listening = await bindHttp({ ...options, auth }, logger);
  const shutdown = async (signal: string) => {
    logger.warn("shutting down: finishing in-flight requests", { signal, graceMs: options.shutdownGraceMs });
    await listening.close();
    await team?.close().catch(() => {});
    process.exit(0);
  };
  process.once("SIGTERM", () => shutdown("SIGTERM"));
  process.once("SIGINT", () => shutdown("SIGINT"));
  return {
    ...listening,
    serve(registry, pages, serving) {
      listening.serve(registry, pages, serving);
      logger.warn("serving Streamable HTTP", {
        url: `${localUrl(listening.server)}${MCP_PATH}`,
        tools: registry.listing.length,
        credentials: serving ? "per-user" : "shared",
      });
    },
  };
}
