import {
  createServer,
  type IncomingMessage,
  type Server as NodeServer,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import type { OAuthTokenVerifier } from "@modelcontextprotocol/sdk/server/auth/provider.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { hostHeaderValidation } from "@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Logger } from "@toolkits/core";
import type { ToolRegistry } from "@toolkits/core/mcp";
import express, { type ErrorRequestHandler, type RequestHandler } from "express";
import { authConfigFromEnv, type HttpAuthConfig, tokenVerifier } from "./http-auth.js";
import type { ServerOptions } from "./options.js";
import type { PagesHandler } from "./pages.js";
import { createMcpServer } from "./server.js";

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
  pages?: PagesHandler;
}

/** Grace period for in-flight calls on shutdown, in milliseconds. */
const SHUTDOWN_GRACE_MS = 15_000;

const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "::1", "[::1]"];
const isLoopback = (host: string): boolean => LOOPBACK_HOSTS.includes(host);

function rpcError(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

/**
 * Serves MCP over Streamable HTTP at `/mcp`: stateless, JSON responses, one cheap low-level server
 * per request over the registry built at start-up. `GET /healthz` answers without authentication.
 * Resolves once listening; the returned server is for shutdown.
 * @throws Error when binding a non-loopback interface without authentication configured.
 */
export async function serveHttp(
  registry: ToolRegistry,
  options: HttpOptions,
  logger: Logger,
): Promise<NodeServer> {
  if (!isLoopback(options.host) && !options.auth) {
    throw new Error(
      `Refusing to serve ${options.host} without authentication: set MCP_HTTP_BEARER_TOKENS or MCP_OAUTH_ISSUER, MCP_OAUTH_AUDIENCE and MCP_OAUTH_JWKS_URL.`,
    );
  }
  const app = express();
  let toolCall: ((req: IncomingMessage, res: ServerResponse) => Promise<boolean>) | undefined;
  const server = createServer((req, res) => {
    if (!toolCall) return void app(req, res);
    toolCall(req, res).then(
      (served) => served || app(req, res),
      () => rpcError(res, 500, "Internal error"),
    );
  });
  server.listen(options.port, options.host);
  await new Promise<void>((resolve, reject) => server.once("listening", resolve).once("error", reject));
  // Routes are added once the port is known, so the resource metadata can name the real URL.
  const publicUrl = options.publicUrl ?? localUrl(server);
  const hosts = [...LOOPBACK_HOSTS, ...options.allowedHosts];
  // The toolkits' own pages post back from this server's origin.
  const origins = [...options.allowedOrigins, new URL(publicUrl).origin];
  const exchange = mcpExchange(registry, options, logger);
  const verifier = options.auth && tokenVerifier(options.auth);
  toolCall = fastToolCall({ hosts, origins, verifier, maxBodyBytes: options.maxBodyBytes }, exchange);
  app.disable("x-powered-by");
  app.use(hostHeaderValidation(hosts));
  app.use(originValidation(origins));
  app.get("/healthz", (_req, res) => {
    res.json({ status: "ok", tools: registry.listing.length });
  });
  if (options.auth && verifier) mountAuth(app, options.auth, verifier, publicUrl);
  app.post(
    "/mcp",
    express.json({ limit: options.maxBodyBytes }),
    (req, res) => void exchange(req, res, req.body),
  );
  app.all("/mcp", (_req, res) => {
    res.set("Allow", "POST");
    rpcError(res, 405, "Method not allowed: this stateless server takes POST only.");
  });
  // After /mcp, so tool calls never pass through the pages (which read bodies themselves).
  const { pages } = options;
  if (pages) app.use((req, res, next) => void pages(req, res).then((served) => served || next(), next));
  app.use(bodyErrors);
  return server;
}

function originValidation(allowed: string[]): RequestHandler {
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (!origin || allowed.includes(origin)) return next();
    rpcError(res, 403, `Origin ${origin} is not allowed. Add it to MCP_ALLOWED_ORIGINS to allow it.`);
  };
}

/** The URL a local client reaches the bound server at, e.g. `http://127.0.0.1:3000`. */
export function localUrl(server: NodeServer): string {
  const { address, port } = server.address() as AddressInfo;
  return `http://${address.includes(":") ? `[${address}]` : address}:${port}`;
}

function mountAuth(
  app: express.Express,
  auth: HttpAuthConfig,
  verifier: OAuthTokenVerifier,
  publicUrl: string,
): void {
  const metadataPath = "/.well-known/oauth-protected-resource/mcp";
  app.get(metadataPath, (_req, res) => {
    res.json({
      resource: `${publicUrl}/mcp`,
      authorization_servers: auth.oauth ? [auth.oauth.issuer] : [],
      bearer_methods_supported: ["header"],
    });
  });
  app.use("/mcp", requireBearerAuth({ verifier, resourceMetadataUrl: `${publicUrl}${metadataPath}` }));
}

/** The request headers the MCP transport reads; the rest stay behind. */
const TRANSPORT_HEADERS = [
  "accept",
  "content-type",
  "mcp-protocol-version",
  "mcp-session-id",
  "last-event-id",
];

/** Answers one MCP POST whose JSON body is already parsed; `req.auth` carries a verified token. */
type Exchange = (
  req: IncomingMessage & { auth?: AuthInfo },
  res: ServerResponse,
  body: unknown,
) => Promise<void>;

function mcpExchange(registry: ToolRegistry, options: HttpOptions, logger: Logger): Exchange {
  return async (req, res, body) => {
    const server = createMcpServer(registry);
    // The SDK's web-standard transport, fed directly: the body is already parsed, and JSON
    // responses need no streaming, so the Node adapter's per-request conversion is not needed.
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    const timer = setTimeout(() => {
      if (!res.headersSent)
        rpcError(res, 504, `The request took longer than ${options.requestTimeoutMs} ms.`);
      void transport.close();
    }, options.requestTimeoutMs);
    res.on("close", () => {
      clearTimeout(timer);
      // A finished exchange leaves nothing open; closing only matters when the client went away
      // mid-call, to abort the tool's upstream request (and it costs an error object per call).
      if (res.writableFinished) return;
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      const headers = new Headers();
      for (const name of TRANSPORT_HEADERS) {
        const value = req.headers[name];
        if (typeof value === "string") headers.set(name, value);
      }
      const request = new Request(`http://${req.headers.host ?? "localhost"}/mcp`, {
        method: "POST",
        headers,
      });
      const response = await transport.handleRequest(request, { parsedBody: body, authInfo: req.auth });
      if (res.headersSent) return;
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(await response.text());
    } catch (error) {
      logger.error("MCP request failed", { error: error instanceof Error ? error.message : String(error) });
      if (!res.headersSent) rpcError(res, 500, "Internal error");
    }
  };
}

interface FastPathRules {
  hosts: readonly string[];
  origins: readonly string[];
  verifier?: OAuthTokenVerifier;
  maxBodyBytes: number;
}

/**
 * The common case, a tool call that passes every check, answered without express, whose routing
 * and body parsing cost more CPU than the rest of the HTTP layer. Resolves false, with the request
 * untouched, for anything else (a foreign Host or Origin, a missing or bad token, a body without
 * Content-Length or over the limit, another path): express and the SDK's middleware then give the
 * full answer, 401 with `WWW-Authenticate` and 413 included.
 */
function fastToolCall(rules: FastPathRules, exchange: Exchange) {
  return async (req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse): Promise<boolean> => {
    if (req.method !== "POST" || req.url !== "/mcp") return false;
    if (!rules.hosts.includes(hostname(req.headers.host))) return false;
    const origin = req.headers.origin;
    if (origin && !rules.origins.includes(origin)) return false;
    const length = Number(req.headers["content-length"]);
    if (!Number.isInteger(length) || length > rules.maxBodyBytes) return false;
    if (!String(req.headers["content-type"]).includes("application/json")) return false;
    if (rules.verifier) {
      const auth = await verifiedToken(rules.verifier, req.headers.authorization);
      if (!auth) return false;
      req.auth = auth;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      rpcError(res, 400, "Request body is not valid JSON.");
      return true;
    }
    await exchange(req, res, body);
    return true;
  };
}

/** The Host header's host name as URL parsing gives it (`[::1]` for IPv6), or "" when unusable. */
function hostname(host: string | undefined): string {
  try {
    return host ? new URL(`http://${host}`).hostname : "";
  } catch {
    return "";
  }
}

/** A token the verifier accepts and that has not expired, or undefined. */
async function verifiedToken(
  verifier: OAuthTokenVerifier,
  header: string | undefined,
): Promise<AuthInfo | undefined> {
  const [scheme, token] = (header ?? "").split(" ");
  if (scheme?.toLowerCase() !== "bearer" || !token) return undefined;
  try {
    const auth = await verifier.verifyAccessToken(token);
    return typeof auth.expiresAt === "number" && auth.expiresAt > Date.now() / 1000 ? auth : undefined;
  } catch {
    return undefined;
  }
}

const bodyErrors: ErrorRequestHandler = (error, _req, res, next) => {
  const status = (error as { status?: number }).status;
  if (status === 413) return rpcError(res, 413, "Request body too large.");
  if (status === 400) return rpcError(res, 400, "Request body is not valid JSON.");
  next(error);
};

/**
 * Serves over HTTP with authentication from the environment until SIGTERM or SIGINT, then stops
 * accepting connections, lets in-flight calls finish (up to 15 s) and exits.
 * Resolves to the server's public base URL once listening.
 */
export async function serveHttpUntilStopped(
  registry: ToolRegistry,
  options: ServerOptions & Pick<HttpOptions, "pages">,
  logger: Logger,
): Promise<string> {
  const server = await serveHttp(registry, { ...options, auth: authConfigFromEnv() }, logger);
  logger.warn("serving Streamable HTTP", { url: `${localUrl(server)}/mcp`, tools: registry.listing.length });
  const shutdown = (signal: string) => {
    logger.warn("shutting down: finishing in-flight requests", { signal });
    server.close(() => process.exit(0));
    // Keep-alive connections go idle only once their call finishes; close each as soon as it does.
    setInterval(() => server.closeIdleConnections(), 50).unref();
    setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref();
  };
  process.once("SIGTERM", () => shutdown("SIGTERM"));
  process.once("SIGINT", () => shutdown("SIGINT"));
  return options.publicUrl ?? localUrl(server);
}
