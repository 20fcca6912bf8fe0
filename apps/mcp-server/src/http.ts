import type { Server as NodeServer } from "node:http";
import type { AddressInfo } from "node:net";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import { hostHeaderValidation } from "@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Logger } from "@toolkits/core";
import type { ToolRegistry } from "@toolkits/core/mcp";
import express, { type ErrorRequestHandler, type RequestHandler, type Response } from "express";
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
export const isLoopback = (host: string): boolean => LOOPBACK_HOSTS.includes(host);

const rpcError = (res: Response, status: number, message: string) =>
  res.status(status).json({ jsonrpc: "2.0", error: { code: -32000, message }, id: null });

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
  const server = app.listen(options.port, options.host);
  await new Promise<void>((resolve, reject) => server.once("listening", resolve).once("error", reject));
  // Routes are added once the port is known, so the resource metadata can name the real URL.
  const publicUrl = options.publicUrl ?? localUrl(server);
  app.disable("x-powered-by");
  app.use(hostHeaderValidation([...LOOPBACK_HOSTS, ...options.allowedHosts]));
  // The toolkits' own pages post back from this server's origin.
  app.use(originValidation([...options.allowedOrigins, new URL(publicUrl).origin]));
  app.get("/healthz", (_req, res) => {
    res.json({ status: "ok", tools: registry.listing.length });
  });
  if (options.auth) mountAuth(app, options.auth, publicUrl);
  app.post("/mcp", express.json({ limit: options.maxBodyBytes }), mcpHandler(registry, options, logger));
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

function mountAuth(app: express.Express, auth: HttpAuthConfig, publicUrl: string): void {
  const metadataPath = "/.well-known/oauth-protected-resource/mcp";
  app.get(metadataPath, (_req, res) => {
    res.json({
      resource: `${publicUrl}/mcp`,
      authorization_servers: auth.oauth ? [auth.oauth.issuer] : [],
      bearer_methods_supported: ["header"],
    });
  });
  app.use(
    "/mcp",
    requireBearerAuth({ verifier: tokenVerifier(auth), resourceMetadataUrl: `${publicUrl}${metadataPath}` }),
  );
}

/** The request headers the MCP transport reads; the rest stay behind. */
const TRANSPORT_HEADERS = [
  "accept",
  "content-type",
  "mcp-protocol-version",
  "mcp-session-id",
  "last-event-id",
];

function mcpHandler(registry: ToolRegistry, options: HttpOptions, logger: Logger): RequestHandler {
  return async (req, res) => {
    const server = createMcpServer(registry);
    // The SDK's web-standard transport, fed directly: express has already parsed the body, and
    // JSON responses need no streaming, so the Node adapter's per-request conversion is not needed.
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
      const request = new Request(`http://${req.headers.host ?? "localhost"}${req.originalUrl}`, {
        method: req.method,
        headers,
      });
      const response = await transport.handleRequest(request, { parsedBody: req.body, authInfo: req.auth });
      if (res.headersSent) return;
      res.status(response.status);
      response.headers.forEach((value, name) => {
        res.setHeader(name, value);
      });
      res.end(await response.text());
    } catch (error) {
      logger.error("MCP request failed", { error: error instanceof Error ? error.message : String(error) });
      if (!res.headersSent) rpcError(res, 500, "Internal error");
    }
  };
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
