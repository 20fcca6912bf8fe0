import type { IncomingMessage, ServerResponse } from "node:http";
import type { Connectors } from "../connectors/selection.js";
import { type Pages, pathOf, serveFetch } from "../pages.js";
import { isConnectPath } from "../team/paths.js";
import type { View } from "../views.js";
import { answerMetadata, connectorTarget } from "./connectors.js";
import type { Drain } from "./drain.js";
import { MCP_PATH, type McpTarget } from "./endpoint.js";
import { closeUntilRead } from "./guards/body.js";
import { json, rpcError } from "./respond.js";

/** What answers each path, behind the guards every request passes. */
export interface Routes {
  drain: Drain;
  /** Host and Origin checks (and CORS); each resolves to whether it answered. */
  guards: readonly ((req: IncomingMessage, res: ServerResponse) => boolean)[];
  /** `/mcp`, and with `target` a connector URL `/mcp/<selection>`. */
  mcp(req: IncomingMessage, res: ServerResponse, bodyRead: () => void, target?: McpTarget): Promise<void>;
  /** The connector URLs' selections over what the server serves. */
  connectors: Connectors;
  /** `/healthz`'s answer: the process is up (liveness). */
  health: () => Record<string, unknown>;
  /** `/readyz`'s answer: what it depends on answers (readiness); `ready: false` is answered 503. */
  ready: () => Promise<{ ready: boolean } & Record<string, unknown>>;
  /**
   * The protected-resource metadata (RFC 9728) of `/mcp` or a connector URL (its path), when the
   * server has an authorization server.
   */
  metadata?: (resourcePath: string, view: View) => string;
  /** The toolkits' pages, outside MCP authentication. */
  pages?: Pages;
  /** The server's own site (front page and icons), outside MCP authentication. */
  site?: Pages;
  /** Per-user mode's `/connect` pages. */
  connect?: (request: Request) => Promise<Response | undefined>;
  /** The built-in authorization server: `/oauth/…` and its well-known metadata. */
  authorization?: {
    owns(path: string): boolean;
    serve(req: IncomingMessage, res: ServerResponse): Promise<void>;
  };
}

/**
 * Every request's path: 503 while draining, then the guards, then by path `/mcp` and the connector
 * URLs `/mcp/<selection>`, `/healthz` and `/readyz` (no authentication), the resource metadata of
 * each MCP URL, a toolkit page, the front page or an icon, the built-in authorization server, or a
 * connect page; anything else is answered 404 without reading its body.
 */
export function route(routes: Routes): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    if (routes.drain.draining)
      return rpcError(res, 503, "The server is shutting down.", { connection: "close" });
    const bodyRead = closeUntilRead(req, res);
    if (routes.guards.some((guard) => guard(req, res))) return;
    const path = pathOf(req);
    if (path === MCP_PATH) return routes.mcp(req, res, bodyRead);
    const connector = connectorTarget(routes.connectors, path);
    if (connector) return routes.mcp(req, res, bodyRead, connector);
    if (path === "/healthz" && req.method === "GET") return json(res, 200, routes.health());
    if (path === "/readyz" && req.method === "GET") {
      const answer = await routes.ready();
      return json(res, answer.ready ? 200 : 503, answer, answer.ready ? {} : { "retry-after": "5" });
    }
    if (routes.metadata && answerMetadata(req, res, path, routes.connectors, routes.metadata)) return;
    if (routes.pages?.owns(path)) return routes.pages.serve(req, res);
    if (routes.site?.owns(path)) return routes.site.serve(req, res);
    if (routes.authorization?.owns(path)) {
      // It reads the body itself (forms and JSON, bounded by its own limits).
      bodyRead();
      return routes.authorization.serve(req, res);
    }
    if (routes.connect && isConnectPath(path)) return serveFetch(routes.connect, req, res);
    res.writeHead(404, { "content-type": "text/plain" }).end("Not found");
  };
}
