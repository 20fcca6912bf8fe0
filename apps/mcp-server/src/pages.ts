import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Toolkit } from "@toolkits/core";

/** Serves one request from the toolkits' pages; resolves false when none of them owns the path. */
export type PagesHandler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

/** Pages posted back by a browser are small forms; anything larger is refused unread. */
const MAX_PAGE_BODY_BYTES = 1_000_000;

/** The toolkits' web pages (e.g. the sheets file picker) as a node request handler, if any has pages. */
export function toolkitPages(toolkits: Toolkit[]): PagesHandler | undefined {
  const owners = toolkits.filter((kit) => kit.pages);
  if (!owners.length) return undefined;
  return async (req, res) => {
    const request = await toFetchRequest(req);
    if (!request) {
      res.writeHead(413).end();
      return true;
    }
    for (const kit of owners) {
      const response = await kit.pages?.(request);
      if (!response) continue;
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
      return true;
    }
    return false;
  };
}

/**
 * Serves the pages on an ephemeral loopback port, for the stdio transport, which has no HTTP
 * server of its own. Resolves to the base URL, e.g. `http://127.0.0.1:41234`.
 */
export async function servePagesOnLoopback(pages: PagesHandler): Promise<string> {
  const server = createServer((req, res) => {
    pages(req, res)
      .then((served) => {
        if (!served) res.writeHead(404).end();
      })
      .catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  server.unref();
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function toFetchRequest(req: IncomingMessage): Promise<Request | undefined> {
  const url = `http://${req.headers.host ?? "127.0.0.1"}${req.url ?? "/"}`;
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.set(name, value);
  }
  if (req.method === "GET" || req.method === "HEAD") return new Request(url, { method: req.method, headers });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_PAGE_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return new Request(url, { method: req.method, headers, body: Buffer.concat(chunks) });
}
