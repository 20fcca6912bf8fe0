// A reverse proxy on loopback in front of a deployment, as its public URL (MCP_PUBLIC_URL), that
// keeps every OAuth exchange passing through it: what a client that the test cannot instrument (a
// real CLI in its own process) asked the authorization server, and what it was answered.
import { once } from "node:events";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as delay } from "node:timers/promises";

/** One request to the token, registration or revocation endpoint, and its answer. */
export interface OAuthExchange {
  path: string;
  /** When it arrived and when it was answered (ms since the epoch). */
  at: number;
  answeredAt: number;
  /** The request body: form fields, or the JSON object of a registration. */
  sent: Record<string, unknown>;
  status: number;
  answer: Record<string, unknown>;
}

export interface RecordingFront {
  /** `http://127.0.0.1:<port>`: the deployment's public URL. */
  url: string;
  /** Where requests go (the deployment's own URL); set once it runs. */
  target: string;
  exchanges: OAuthExchange[];
  stop(): Promise<void>;
}

/**
 * Starts the front; token requests reach the deployment `tokenLatencyMs` late, as from a client
 * across the internet, so requests a client sends close together overlap as they would there.
 */
export async function startRecordingFront(tokenLatencyMs = 0): Promise<RecordingFront> {
  const front: RecordingFront = { url: "", target: "", exchanges: [], stop: async () => {} };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const path = req.url ?? "/";
    const at = Date.now();
    if (path.startsWith("/oauth/token")) await delay(tokenLatencyMs);
    const forwarded = request(new URL(path, front.target), { method: req.method, headers: req.headers });
    forwarded.on("error", () => res.destroy());
    forwarded.on("response", async (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      if (!/^\/oauth\/(token|register|revoke)\b/.test(path)) {
        answer.pipe(res);
        return;
      }
      const parts: Buffer[] = [];
      for await (const chunk of answer) parts.push(chunk as Buffer);
      const text = Buffer.concat(parts).toString("utf8");
      res.end(text);
      front.exchanges.push({
        path: path.split("?")[0] ?? path,
        at,
        answeredAt: Date.now(),
        sent: parse(body.toString("utf8"), req.headers["content-type"]),
        status: answer.statusCode ?? 0,
        answer: parse(text, answer.headers["content-type"]),
      });
    });
    forwarded.end(body);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  front.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  front.stop = () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return front;
}

function parse(text: string, type: string | undefined): Record<string, unknown> {
  if (type?.includes("application/x-www-form-urlencoded"))
    return Object.fromEntries(new URLSearchParams(text));
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { text };
  }
}
