import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A stand-in upstream on 127.0.0.1: its URL, the requests it received, and how to stop it. */
export interface Upstream {
  url: string;
  /** Each request's method and URL (path and query), in arrival order. */
  arrivals: string[];
  close(): Promise<void>;
}

async function listen(answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<Upstream> {
  const arrivals: string[] = [];
  const server = createServer((req, res) => {
    arrivals.push(`${req.method} ${req.url}`);
    answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const base64 = (text: string) => Buffer.from(text).toString("base64");

/** The credential of an `Authorization` header, without its scheme. */
const credentialOf = (header: string) => header.replace(/^(Bearer|Token token=)/, "").trim();

/**
 * How the echoing upstream quotes the credential it received, by the last path segment (the id a
 * `Pager.GetIncident` call asks for): the header itself, the key URL-encoded, base64, inside a
 * `Basic` credential, and as a query parameter of a URL.
 */
export const ECHOES: Readonly<Record<string, (header: string, url: string) => string>> = {
  header: (header) => `Malformed header: ${header}`,
  urlencoded: (header) => `token ${encodeURIComponent(credentialOf(header))} is not valid`,
  base64: (header) => `credential ${base64(credentialOf(header))} has expired`,
  basic: (header) => `expected Authorization: Basic ${base64(`user:${credentialOf(header)}`)}`,
  query: (header, url) => `redirect to ${url}&api_key=${encodeURIComponent(credentialOf(header))}`,
};

/**
 * A PagerDuty stand-in that answers every request 400 with PagerDuty's error body, quoting the
 * Authorization header it received in the form the requested id names (see ECHOES).
 */
export function echoingUpstream(): Promise<Upstream> {
  return listen((req, res) => {
    const url = req.url ?? "/";
    const form = new URL(url, "http://localhost").pathname.split("/").at(-1) ?? "";
    const echo = (Object.hasOwn(ECHOES, form) ? ECHOES[form] : ECHOES.header) ?? (() => "");
    res.writeHead(400, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message: echo(req.headers.authorization ?? "", url), code: 2001 } }));
  });
}

/** An upstream that never answers: every call to it hangs until the caller gives up. */
export function hangingUpstream(): Promise<Upstream> {
  return listen(() => {});
}

/** An upstream that answers every request 200 `{}`, to show what reached it. */
export function recordingUpstream(): Promise<Upstream> {
  return listen((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end("{}");
  });
}
