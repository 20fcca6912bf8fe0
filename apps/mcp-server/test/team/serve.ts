import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A fetch-style handler: `undefined` for a request it does not serve (answered 404). */
export type FetchHandler = (request: Request) => Promise<Response | undefined>;

export interface Served {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  stop(): Promise<void>;
}

/**
 * Serves a fetch-style handler on a free loopback port. The handler is made once the URL is
 * known (`make(url)`), since redirect URIs are built on it.
 */
export async function serveFetch(make: (url: string) => FetchHandler): Promise<Served> {
  let handler: FetchHandler | undefined;
  const server: Server = createServer((req, res) => {
    answer(req, res, handler).catch((error: unknown) => {
      res.writeHead(500, { "content-type": "text/plain" }).end(String(error));
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  handler = make(url);
  return {
    url,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function answer(req: IncomingMessage, res: ServerResponse, handler: FetchHandler | undefined) {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.set(name, value);
  }
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  const request = new Request(`http://${req.headers.host}${req.url}`, {
    method: req.method,
    headers,
    body: hasBody ? Buffer.concat(chunks) : undefined,
  });
  const response = await handler?.(request);
  if (!response) return void res.writeHead(404).end();
  const out: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") out[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) out["set-cookie"] = cookies;
  res.writeHead(response.status, out);
  res.end(Buffer.from(await response.arrayBuffer()));
}
