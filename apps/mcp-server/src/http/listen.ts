import { createServer, type Server as NodeServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { localhostAllowedHostnames } from "@modelcontextprotocol/server";
import type { Logger } from "@toolkits/core";

/** The loopback names as Host headers and origins give them. */
export const LOOPBACK_HOSTS: readonly string[] = localhostAllowedHostnames();

/** How the server listens: its interface and port, and the limits on every connection. */
export interface ListenOptions {
  host: string;
  port: number;
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
  /**
   * Most connections open at once from one remote address; one more is closed as soon as it is
   * accepted. Unset: a share of `maxConnections` (see `perAddressLimit`).
   */
  maxConnectionsPerAddress?: number;
}

/** A listening server. */
export interface Binding {
  server: NodeServer;
  /** The URL a local client reaches it at, e.g. `http://127.0.0.1:3000`. */
  localUrl: string;
}

/**
 * Whether `host` (as `--host` takes it: `::1` unbracketed) is a loopback interface: the one rule.
 * A server on loopback may go without authentication and accepts browser origins on any loopback
 * name and port.
 */
export const isLoopbackHost = (host: string): boolean => [...LOOPBACK_HOSTS, "::1"].includes(host);

/** Binds `options.host:port` with the connection limits (see `connectionLimits`). */
export async function listen(options: ListenOptions, logger: Logger): Promise<Binding> {
  const server = createServer(connectionLimits(options));
  limitConnections(server, options.maxConnections, logger);
  limitPerAddress(server, perAddressLimit(options), logger);
  server.listen(options.port, options.host);
  await new Promise<void>((resolve, reject) => server.once("listening", resolve).once("error", reject));
  const { address, port } = server.address() as AddressInfo;
  const localUrl = `http://${address.includes(":") ? `[${address}]` : address}:${port}`;
  return { server, localUrl };
}

/**
 * The connections one remote address may hold: the explicit setting, else a quarter of
 * `maxConnections` (at least 1). A fixed number would be no limit at all below it: a total of 50
 * with 128 per address lets one address hold all 50 and lock every other one out.
 */
function perAddressLimit(options: ListenOptions): number {
  return options.maxConnectionsPerAddress ?? Math.max(1, Math.floor(options.maxConnections / 4));
}

/**
 * Node's own limits, as verified with real sockets (Node 20 and 22): `headersTimeout` answers 408
 * and closes a new connection that sends nothing that long after it opened, and a request whose
 * headers are not complete that long after its first byte; `requestTimeout` does the same to one
 * whose body is not complete that long after its first byte. Both are checked every
 * `connectionsCheckingInterval` (30 s by default, which made them that much later).
 * `keepAliveTimeout` closes a connection idle between requests (Node adds 1 s to what it advertises).
 */
function connectionLimits(options: ListenOptions) {
  return {
    headersTimeout: options.headerTimeoutMs,
    requestTimeout: options.headerTimeoutMs + options.bodyTimeoutMs,
    keepAliveTimeout: options.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.min(1_000, Math.ceil(options.headerTimeoutMs / 4)),
  };
}

/**
 * Caps open connections: Node closes one over `max` as soon as it is accepted. Warns once each
 * time the cap is reached, not for every connection refused.
 */
function limitConnections(server: NodeServer, max: number, logger: Logger): void {
  server.maxConnections = max;
  let full = false;
  server.on("connection", () => {
    full = false;
  });
  server.on("drop", () => {
    if (!full) logger.warn("refusing connections: --max-connections reached", { max });
    full = true;
  });
}

/**
 * Caps the connections open from one remote address, so that slow clients on one address (a
 * request's headers trickling in until the header timeout) cannot take every connection the server
 * has. One more is closed as soon as it is accepted; a warning is logged once per address each time
 * it reaches the cap.
 */
function limitPerAddress(server: NodeServer, max: number, logger: Logger): void {
  const open = new Map<string, number>();
  server.on("connection", (socket: Socket) => {
    const address = socket.remoteAddress ?? "";
    const count = open.get(address) ?? 0;
    if (count >= max) {
      if (count === max) logger.warn("refusing connections: --max-connections-per-address reached", { max });
      open.set(address, count + 1);
      socket.once("close", () => release(open, address));
      socket.destroy();
      return;
    }
    open.set(address, count + 1);
    socket.once("close", () => release(open, address));
  });
}

function release(open: Map<string, number>, address: string): void {
  const left = (open.get(address) ?? 1) - 1;
  if (left > 0) open.set(address, left);
  else open.delete(address);
}
