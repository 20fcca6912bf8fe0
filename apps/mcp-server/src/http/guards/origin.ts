import type { IncomingMessage, ServerResponse } from "node:http";
import { LOOPBACK_HOSTS } from "../listen.js";
import { rpcError } from "../respond.js";

/** Which browser origins may call, and which may also read answers across origins. */
export interface OriginPolicy {
  /** MCP_ALLOWED_ORIGINS: may call, and get CORS headers. */
  allowed: readonly string[];
  /** The server's own origin (its pages post back to it). */
  own: string;
  /** Bound to loopback: any loopback origin, on any port, may call (but not read cross-origin). */
  loopback: boolean;
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

/**
 * Checks a browser's `Origin` (requests without one, from non-browser clients, pass): 403 for an
 * origin that may not call; CORS headers for one in MCP_ALLOWED_ORIGINS; preflights answered (204
 * for those origins, 403 for any other). Resolves to whether it answered.
 */
export function originGuard(policy: OriginPolicy): (req: IncomingMessage, res: ServerResponse) => boolean {
  const crossOrigin = new Set(policy.allowed);
  const mayCall = callerRule(policy);
  return (req, res) => {
    const origin = req.headers.origin;
    if (!origin || ownOpaque(req, origin)) return false;
    if (!mayCall(origin)) {
      rpcError(res, 403, `Origin ${origin} is not allowed. Add it to MCP_ALLOWED_ORIGINS to allow it.`);
      return true;
    }
    const readable = crossOrigin.has(origin);
    if (readable) allowCrossOrigin(res, origin);
    if (req.method !== "OPTIONS" || !req.headers["access-control-request-method"]) return false;
    preflight(req, res, origin, readable);
    return true;
  };
}

function callerRule(policy: OriginPolicy): (origin: string) => boolean {
  const exact = new Set([...policy.allowed, policy.own]);
  return (origin) => {
    if (exact.has(origin)) return true;
    if (!policy.loopback) return false;
    try {
      return LOOPBACK_HOSTS.includes(new URL(origin).hostname);
    } catch {
      return false;
    }
  };
}

/**
 * A form posted from one of this server's own pages, which send no referrer: the browser then says
 * `Origin: null`, and `Sec-Fetch-Site` (which no page can set) says where it came from.
 */
const ownOpaque = (req: IncomingMessage, origin: string): boolean =>
  origin === "null" && req.headers["sec-fetch-site"] === "same-origin";

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
