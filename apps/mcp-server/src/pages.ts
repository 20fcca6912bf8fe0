import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type StateStore, type Toolkit, withSecretScope } from "@toolkits/core";

/** The toolkits' web pages (e.g. the sheets file picker), served outside MCP authentication. */
export interface Pages {
  /** Whether a toolkit's pages live under this path; nothing else is ever read by `serve`. */
  owns(path: string): boolean;
  /** Serves one request whose path `owns`; 404 when the owning toolkit has no such page. */
  serve(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

/**
 * Who the browsers are, on a server shared by several people who each act as themselves
 * (`--credentials per-user`): the toolkits' pages serve each person only their own state.
 */
export interface PageVisitors {
  /** The principal the request's browser is signed in as, if any. @throws StoreUnavailable */
  personOf(request: Request): Promise<string | undefined>;
  /** A response sending the browser to sign in, then back to `returnTo` (a path on this server). */
  signIn(returnTo: string): Promise<Response>;
  /** The state of `principal`: what their tools see as `context.state`. */
  stateOf(principal: string): StateStore;
}

/** Pages posted back by a browser are small forms; anything larger is refused unread. */
const MAX_PAGE_BODY_BYTES = 1_000_000;

/**
 * The toolkits' pages, or undefined when no toolkit has any. They keep their state in `state`, the
 * store the host gives the tools, so a page serves what a tool started. With `visitors` (per user),
 * a page is served only to a signed-in browser, with its person's state: a browser that is not
 * signed in is sent to sign in (a GET) or answered 401 (anything else), before any page runs.
 */
export function toolkitPages(
  toolkits: readonly Toolkit[],
  state: StateStore,
  visitors?: PageVisitors,
): Pages | undefined {
  const owners = toolkits.filter((kit) => kit.pages && kit.pagesPath);
  if (!owners.length) return undefined;
  const ownerOf = (path: string) => owners.find((kit) => path.startsWith(kit.pagesPath ?? "\0"));
  const page = async (request: Request) => {
    const url = new URL(request.url);
    const kit = ownerOf(url.pathname);
    if (!kit?.pages || !visitors) return kit?.pages?.(request, { state });
    const person = await visitors.personOf(request);
    if (person) return kit.pages(request, { state: visitors.stateOf(person) });
    return request.method === "GET" ? visitors.signIn(`${url.pathname}${url.search}`) : signInFirst();
  };
  return {
    owns: (path) => ownerOf(path) !== undefined,
    serve: (req, res) => serveFetch(page, req, res),
  };
}

const signInFirst = () =>
  Response.json(
    { error: "This browser is not signed in here: open the link again to sign in." },
    { status: 401, headers: { "cache-control": "no-store" } },
  );

/**
 * Serves the pages on an ephemeral loopback port, for the stdio transport, which has no HTTP
 * server of its own. Only the loopback address is accepted as `Host`, so a page elsewhere cannot
 * reach it through DNS rebinding. Resolves to the base URL, e.g. `http://127.0.0.1:41234`.
 */
export async function servePagesOnLoopback(pages: Pages): Promise<string> {
  // Imported here: a stdio server loads Node's HTTP server only once its pages listen.
  const { createServer } = await import("node:http");
  let expectedHost = "";
  const server = createServer((req, res) => {
    if (req.headers.host !== expectedHost || !pages.owns(pathOf(req))) return void res.writeHead(404).end();
    pages.serve(req, res).catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  server.unref();
  expectedHost = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return `http://${expectedHost}`;
}

/**
 * Answers a node request with a fetch-style page handler: 413 for a body over 1 MB, 404 when the
 * handler has no page there. Every `Set-Cookie` the page sets is kept. The handler runs in a secret
 * scope of its own: credentials it wraps (a person's tokens on the connect pages) are redacted
 * from that request's output only.
 */
export async function serveFetch(
  page: (request: Request) => Promise<Response | undefined> | undefined,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const request = await toFetchRequest(req);
  if (!request) return void res.writeHead(413).end();
  const response = await withSecretScope(() => page(request));
  if (!response) return void res.writeHead(404).end();
  const headers: Record<string, string | string[]> = Object.fromEntries(response.headers);
  const cookies = response.headers.getSetCookie();
  if (cookies.length) headers["set-cookie"] = cookies;
  res.writeHead(response.status, headers);
  res.end(Buffer.from(await response.arrayBuffer()));
}

/** The request's path without its query. */
export const pathOf = (req: IncomingMessage): string => (req.url ?? "/").split("?", 1)[0] ?? "/";

async function toFetchRequest(req: IncomingMessage): Promise<Request | undefined> {
  const url = `http://${req.headers.host ?? "127.0.0.1"}${req.url ?? "/"}`;
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.set(name, value);
  }
  if (req.method === "GET" || req.method === "HEAD") return new Request(url, { method: req.method, headers });
  const body = await readBody(req, MAX_PAGE_BODY_BYTES);
  return body && new Request(url, { method: req.method, headers, body });
}

/**
 * The request's body, or undefined when it is over `maxBytes`: refused unread when its declared
 * length says so, else as soon as that many bytes have arrived. The rest is left unread (not
 * destroyed), so the answer can still reach a client that is sending it.
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  if (Number(req.headers["content-length"] ?? 0) > maxBytes) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (body: Buffer | undefined) => {
      req.off("data", take).off("end", done).off("error", reject);
      resolve(body);
    };
    const take = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      req.pause();
      settle(undefined);
    };
    const done = () => settle(Buffer.concat(chunks));
    req.on("data", take).once("end", done).once("error", reject);
  });
}
