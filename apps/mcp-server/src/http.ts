import { createHash } from "node:crypto";
import {
  createServer,
  type IncomingMessage,
  type Server as NodeServer,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import {
  type AuthInfo,
  bearerAuthChallengeResponse,
  createMcpHandler,
  localhostAllowedHostnames,
  verifyBearerToken,
} from "@modelcontextprotocol/server";
import type { Logger } from "@toolkits/core";
import type { ToolRegistry } from "@toolkits/core/mcp";
import { authConfigFromEnv, type HttpAuthConfig, tokenVerifier } from "./http-auth.js";
import type { ServerOptions } from "./options.js";
import { type Pages, pathOf } from "./pages.js";
import { createServerFor } from "./server.js";

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
  /** The server's externally visible base URL (behind a proxy); default: the bound address. */
  publicUrl?: string;
  /** The toolkits' web pages (e.g. the sheets file picker), served outside MCP authentication. */
  pages?: Pages;
}

/** Grace period for in-flight calls on shutdown, in milliseconds. */
const SHUTDOWN_GRACE_MS = 15_000;
const MCP_PATH = "/mcp";
const METADATA_PATH = "/.well-known/oauth-protected-resource/mcp";
const LOOPBACK_HOSTS = localhostAllowedHostnames();
const isLoopback = (host: string): boolean => [...LOOPBACK_HOSTS, "::1"].includes(host);

/** A bound HTTP server, waiting for the registry it will serve. */
export interface ListeningHttp {
  server: NodeServer;
  /** The server's externally visible base URL: `--public-url`, else the bound address. */
  publicUrl: string;
  /** Starts answering requests from `registry`, with the toolkits' `pages` outside authentication. */
  serve(registry: ToolRegistry, pages?: Pages): void;
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
 * @throws Error when binding a non-loopback interface without authentication configured.
 */
export async function bindHttp(options: Omit<HttpOptions, "pages">, logger: Logger): Promise<ListeningHttp> {
  if (!isLoopback(options.host) && !options.auth) {
    throw new Error(
      `Refusing to serve ${options.host} without authentication: set MCP_HTTP_BEARER_TOKENS or MCP_OAUTH_ISSUER, MCP_OAUTH_AUDIENCE and MCP_OAUTH_JWKS_URL.`,
    );
  }
  const server = createServer();
  server.listen(options.port, options.host);
  await new Promise<void>((resolve, reject) => server.once("listening", resolve).once("error", reject));
  const publicUrl = options.publicUrl ?? localUrl(server);
  return {
    server,
    publicUrl,
    serve(registry, pages) {
      const admit = admission(registry, { ...options, pages, publicUrl }, logger);
      server.on("request", (req: IncomingMessage, res: ServerResponse) => {
        admit(req, res).catch((error: unknown) => {
          logger.error("HTTP request failed", {
            error: error instanceof Error ? error.message : String(error),
          });
          if (!res.headersSent) rpcError(res, 500, "Internal error");
        });
      });
    },
  };
}

type Admit = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

function admission(
  registry: ToolRegistry,
  options: HttpOptions & { publicUrl: string },
  logger: Logger,
): Admit {
  const hosts = [...LOOPBACK_HOSTS, ...options.allowedHosts];
  const origin = originRule(options);
  const mcp = mcpEndpoint(registry, options, logger);
  const metadata = JSON.stringify({
    resource: `${options.publicUrl}${MCP_PATH}`,
    authorization_servers: options.auth?.oauth ? [options.auth.oauth.issuer] : [],
    bearer_methods_supported: ["header"],
  });
  return async (req, res) => {
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
    const path = pathOf(req);
    if (path === MCP_PATH) return mcp(req, res);
    if (path === "/healthz" && req.method === "GET")
      return json(res, 200, { status: "ok", tools: registry.listing.length });
    if (path === METADATA_PATH && options.auth && req.method === "GET") return json(res, 200, metadata);
    if (options.pages?.owns(path)) return options.pages.serve(req, res);
    res.writeHead(404, { "content-type": "text/plain" }).end("Not found");
  };
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
  logger: Logger,
): Admit {
  const calls = new CallsInFlight();
  const onerror = (error: Error) => logger.debug("MCP request refused", { error: error.message });
  const handler = createMcpHandler(
    ({ authInfo, requestInfo }) =>
      createServerFor(calls.tracking(registry, callerOf(authInfo), requestInfo?.signal)),
    { onerror, maxRequestBodySize: options.maxBodyBytes },
  );
  const verifier = options.auth && tokenVerifier(options.auth);
  const resourceMetadataUrl = `${options.publicUrl}${METADATA_PATH}`;
  return async (req, res) => {
    let authInfo: AuthInfo | undefined;
    if (verifier) {
      try {
        authInfo = await verifyBearerToken(req.headers.authorization, { verifier, resourceMetadataUrl });
      } catch (error) {
        return sendResponse(res, bearerAuthChallengeResponse(error, { resourceMetadataUrl }));
      }
    }
    let body: unknown;
    if (req.method === "POST") {
      const read = await readJson(req, options.maxBodyBytes);
      if ("status" in read) return rpcError(res, read.status, read.message);
      body = read.body;
      const cancelled = cancelledRequestId(body);
      if (cancelled !== undefined) calls.cancel(callerOf(authInfo), cancelled);
    }
    const signal = exchangeSignal(res, options.requestTimeoutMs);
    const call = plainLegacyCall(body, req.headers);
    if (call) {
      const tracked = calls.tracking(registry, callerOf(authInfo), signal);
      const result = await tracked.call(call.name, call.arguments, {
        requestId: call.id,
        signal,
        notify: noNotify,
      });
      if (!res.headersSent) json(res, 200, { jsonrpc: "2.0", id: call.id, result });
      return;
    }
    await sendResponse(res, await handler.fetch(webRequest(req, signal), { authInfo, parsedBody: body }));
  };
}

const noNotify = async () => {};
const LEGACY_REVISIONS = ["2025-11-25", "2025-06-18", "2025-03-26"];

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
  const version = headers["mcp-protocol-version"];
  if (version !== undefined && !LEGACY_REVISIONS.includes(String(version))) return undefined;
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
 * Aborts when the client goes away before the answer, or when the request takes longer than
 * `timeoutMs` (then answered 504), so the call and its upstream requests stop.
 */
function exchangeSignal(res: ServerResponse, timeoutMs: number): AbortSignal {
  const controller = new AbortController();
  const timer = setTimeout(() => {
    if (!res.headersSent) rpcError(res, 504, `The request took longer than ${timeoutMs} ms.`);
    else res.destroy();
    controller.abort();
  }, timeoutMs);
  res.once("close", () => {
    clearTimeout(timer);
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
  const tooLarge = { status: 413, message: "Request body too large." };
  if (
    !String(req.headers["content-type"] ?? "")
      .toLowerCase()
      .startsWith("application/json")
  ) {
    return { status: 415, message: "Content-Type must be application/json." };
  }
  if (Number(req.headers["content-length"] ?? 0) > maxBytes) return tooLarge;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) return tooLarge;
    chunks.push(chunk as Buffer);
  }
  try {
    return { body: JSON.parse(Buffer.concat(chunks).toString("utf8")) };
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

function rpcError(res: ServerResponse, status: number, message: string): void {
  json(res, status, { jsonrpc: "2.0", error: { code: -32000, message }, id: null });
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(typeof body === "string" ? body : JSON.stringify(body));
}

/** Writes a web-standard response, streaming an event stream as it comes; a finished exchange is left alone. */
async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
  if (res.headersSent || res.destroyed) return void response.body?.cancel().catch(() => {});
  res.writeHead(response.status, Object.fromEntries(response.headers));
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
export function localUrl(server: NodeServer): string {
  const { address, port } = server.address() as AddressInfo;
  return `http://${address.includes(":") ? `[${address}]` : address}:${port}`;
}

/**
 * Binds with authentication from the environment and serves, once given the registry, until
 * SIGTERM or SIGINT; then stops accepting connections, lets in-flight calls finish (up to 15 s)
 * and exits.
 */
export async function listenHttp(options: ServerOptions, logger: Logger): Promise<ListeningHttp> {
  const listening = await bindHttp({ ...options, auth: authConfigFromEnv() }, logger);
  const { server } = listening;
  const shutdown = (signal: string) => {
    logger.warn("shutting down: finishing in-flight requests", { signal });
    server.close(() => process.exit(0));
    // Keep-alive connections go idle only once their call finishes; close each as soon as it does.
    setInterval(() => server.closeIdleConnections(), 50).unref();
    setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref();
  };
  process.once("SIGTERM", () => shutdown("SIGTERM"));
  process.once("SIGINT", () => shutdown("SIGINT"));
  return {
    ...listening,
    serve(registry, pages) {
      listening.serve(registry, pages);
      logger.warn("serving Streamable HTTP", {
        url: `${localUrl(server)}${MCP_PATH}`,
        tools: registry.listing.length,
      });
    },
  };
}
