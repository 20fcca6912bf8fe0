import type { IncomingMessage, ServerResponse } from "node:http";
import { LOOPBACK_HOSTS } from "../listen.js";
import { rpcError } from "../respond.js";

/**
 * Refuses (403) a request whose `Host` is neither a loopback name nor one of `allowed`, against DNS
 * rebinding. Resolves to whether it answered.
 */
export function hostGuard(
  allowed: readonly string[],
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const hosts = new Set([...LOOPBACK_HOSTS, ...allowed]);
  return (req, res) => {
    const host = hostname(req.headers.host);
    if (host && hosts.has(host)) return false;
    rpcError(res, 403, `Invalid Host: ${host ?? req.headers.host ?? ""}`);
    return true;
  };
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
