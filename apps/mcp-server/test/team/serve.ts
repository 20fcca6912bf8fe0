import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serveFetch as answer } from "../../src/pages.js";

/** A fetch-style handler: `undefined` for a request it does not serve (answered 404). */
export type FetchHandler = (request: Request) => Promise<Response | undefined>;

export interface Served {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  stop(): Promise<void>;
}

/**
 * Serves a fetch-style handler on a free loopback port, through the server's own adapter (the one
 * that serves the connect pages). The handler is made once the URL is known (`make(url)`), since
 * redirect URIs are built on it.
 */
export async function serveFetch(make: (url: string) => FetchHandler): Promise<Served> {
  let handler: FetchHandler | undefined;
  const server: Server = createServer((req, res) => {
    answer(async (request) => handler?.(request), req, res).catch((error: unknown) => {
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
