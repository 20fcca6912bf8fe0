import type { IncomingMessage, ServerResponse } from "node:http";
import { type Pages, pathOf, serveFetch } from "../pages.js";
import { isConnectPath } from "../team/paths.js";
import type { Drain } from "./drain.js";
import { MCP_PATH } from "./endpoint.js";
import { closeUntilRead } from "./guards/body.js";
import { json, rpcError } from "./respond.js";

export const METADATA_PATH = `/.well-known/oauth-protected-resource${MCP_PATH}`;

/** What answers each path, behind the guards every request passes. */
export interface Routes {
  drain: Drain;
  /** Host and Origin checks (and CORS); each resolves to whether it answered. */
  guards: readonly ((req: IncomingMessage, res: ServerResponse) => boolean)[];
  mcp(req: IncomingMessage, res: ServerResponse, bodyRead: () => void): Promise<void>;
  /** `/healthz`'s answer: the process is up (liveness). */
  health: () => Record<string, unknown>;
  /** `/readyz`'s answer: what it depends on answers (readiness); `ready: false` is answered 503. */
  ready: () => Promise<{ ready: boolean } & Record<string, unknown>>;
  /** The protected-resource metadata (RFC 9728), when the server authenticates. */
  metadata?: string;
  /** The toolkits' pages, outside MCP authentication. */
  pages?: Pages;
  /** Per-user mode's `/connect` pages. */
  connect?: (request: Request) => Promise<Response | undefined>;
  /** The built-in authorization server: `/oauth/…` and its well-known metadata. */
  authorization?: {
    owns(path: string): boolean;
    serve(req: IncomingMessage, res: ServerResponse): Promise<void>;
  };
}

/**
 * Every request's path: 503 while draining, then the guards, then by path `/mcp`, `/healthz` and
 * `/readyz` (no authentication), the resource metadata, a toolkit page, the built-in authorization
 * server or a connect page; anything else is answered 404 without reading its body.
 */
export function route(routes: Routes): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    if (routes.drain.draining)
      return rpcError(res, 503, "The server is shutting down.", { connection: "close" });
    const bodyRead = closeUntilRead(req, res);
    if (routes.guards.some((guard) => guard(req, res))) return;
    const path = pathOf(req);
    if (path === MCP_PATH) return routes.mcp(req, res, bodyRead);
    if (path === "/healthz" && req.method === "GET") return json(res, 200, routes.health());
    if (path === "/readyz" && req.method === "GET") {
      const answer = await routes.ready();
      return json(res, answer.ready ? 200 : 503, answer, answer.ready ? {} : { "retry-after": "5" });
    }
    if (path === METADATA_PATH && routes.metadata && req.method === "GET")
      return json(res, 200, routes.metadata);
    if (routes.pages?.owns(path)) return routes.pages.serve(req, res);
    if (routes.authorization?.owns(path)) {
      // It reads the body itself (forms and JSON, bounded by its own limits).
      bodyRead();
      return routes.authorization.serve(req, res);
    }
    if (routes.connect && isConnectPath(path)) return serveFetch(routes.connect, req, res);
    res.writeHead(404, { "content-type": "text/plain" }).end("Not found");
  };
}
