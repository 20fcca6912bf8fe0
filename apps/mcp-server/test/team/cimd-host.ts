// A host serving client metadata documents over https on loopback, as claude.ai, chatgpt.com and
// vscode.dev serve theirs: a self-signed certificate made with openssl for 127.0.0.1, which the
// server's replicas trust through NODE_EXTRA_CA_CERTS, and which they may fetch from only because
// MCP_CIMD_PRIVATE_HOSTS names it. Each path answers as the test sets it: a document, a status, a
// redirect, a delay, an oversized body, a closed connection. The certificate names localhost too, so only the server's
// guard (never TLS) stops a fetch from there.
import { execFile } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const exec = promisify(execFile);

/** How one path answers. */
export interface Served {
  status?: number;
  /** A JSON body (a string or bytes are sent unchanged). */
  body?: unknown;
  headers?: Record<string, string>;
  /** Milliseconds to wait before answering. */
  delayMs?: number;
  /** Closes the connection instead of answering (a host that is there but gives nothing). */
  hangUp?: boolean;
}

export interface CimdHost {
  /** `127.0.0.1:<port>`, for MCP_CIMD_PRIVATE_HOSTS. */
  host: string;
  /** The URL of `path` on this host. */
  url(path: string): string;
  /** The certificate file, for NODE_EXTRA_CA_CERTS. */
  caFile: string;
  /** Sets how `path` answers. */
  serve(path: string, served: Served): void;
  /** How many requests each path got. */
  hits(path: string): number;
  stop(): Promise<void>;
}

export async function startCimdHost(): Promise<CimdHost> {
  const dir = await mkdtemp(join(tmpdir(), "toolkits-cimd-"));
  const [key, cert] = [join(dir, "key.pem"), join(dir, "cert.pem")];
  await exec("openssl", [
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-days",
    "1",
    "-subj",
    "/CN=127.0.0.1",
    "-addext",
    "subjectAltName=IP:127.0.0.1,DNS:localhost",
    "-keyout",
    key,
    "-out",
    cert,
  ]);
  const paths = new Map<string, Served>();
  const counts = new Map<string, number>();
  const server: Server = createServer(
    { key: await readFile(key), cert: await readFile(cert) },
    async (req, res) => {
      const path = (req.url ?? "/").split("?")[0] ?? "/";
      counts.set(path, (counts.get(path) ?? 0) + 1);
      const served = paths.get(path) ?? { status: 404, body: { error: "not found" } };
      if (served.hangUp) return void req.socket.destroy();
      if (served.delayMs) await new Promise((resolve) => setTimeout(resolve, served.delayMs));
      const body =
        typeof served.body === "string" || Buffer.isBuffer(served.body)
          ? served.body
          : JSON.stringify(served.body ?? {});
      res.writeHead(served.status ?? 200, { "content-type": "application/json", ...served.headers });
      res.end(body);
    },
  );
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    host,
    url: (path) => `https://${host}${path}`,
    caFile: cert,
    serve: (path, served) => paths.set(path, served),
    hits: (path) => counts.get(path) ?? 0,
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
