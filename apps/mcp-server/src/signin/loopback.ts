import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { escapeHtml } from "@toolkits/core";

/** The path of the redirect URI on the loopback listener. */
export const CALLBACK_PATH = "/callback";

/** The browser's arrival at the redirect URI, held open until the sign-in has an outcome. */
export interface Arrival {
  /** The full callback URL, as the authorization server redirected to it. */
  url: URL;
  /** Ends the browser's request with a page telling the user how it went. */
  answer(outcome: { ok: boolean; message: string }): void;
}

/** A listener on 127.0.0.1 waiting for one authorization response. */
export interface Loopback {
  /** `http://127.0.0.1:<port>/callback`. */
  redirectUri: string;
  /** Resolves at the first callback carrying `state`; rejects after `timeoutMs`. */
  arrival: Promise<Arrival>;
  close(): void;
}

/**
 * Listens on 127.0.0.1 (port 0 picks a free one) for the authorization server's redirect.
 * Callbacks with another `state` (a stale tab, a forged link) get an error page and are otherwise
 * ignored; other paths get 404.
 */
export async function listenForCallback(options: {
  port: number;
  state: string;
  timeoutMs: number;
}): Promise<Loopback> {
  let arrived: (arrival: Arrival) => void = () => {};
  let failed: (error: Error) => void = () => {};
  // A reloaded tab repeats the callback; only the first is answered with the outcome.
  let settled = false;
  const arrival = new Promise<Arrival>((resolve, reject) => {
    arrived = resolve;
    failed = reject;
  });
  const server = createServer((request, response) => {
    // Built on the redirect URI, not the Host header: the token request must repeat that URI exactly.
    const url = new URL(request.url ?? "/", `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    if (request.method !== "GET" || url.pathname !== CALLBACK_PATH) {
      return page(response, 404, false, "Nothing here.");
    }
    if (url.searchParams.get("state") !== options.state) {
      return page(
        response,
        400,
        false,
        "This sign-in link is stale or was not started here. Run the login command again.",
      );
    }
    if (settled) return page(response, 409, false, "This sign-in was already answered; see the terminal.");
    settled = true;
    arrived({ url, answer: ({ ok, message }) => page(response, ok ? 200 : 400, ok, message) });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "EADDRINUSE"
          ? new Error(`Port ${options.port} on 127.0.0.1 is in use; free it or pick another --port.`)
          : error,
      ),
    );
    server.listen(options.port, "127.0.0.1", () => resolve());
  });
  const timer = setTimeout(
    () =>
      failed(
        new Error(
          `No answer from the browser within ${Math.round(options.timeoutMs / 1000)} s. Run the login command again.`,
        ),
      ),
    options.timeoutMs,
  );
  const { port } = server.address() as AddressInfo;
  return {
    redirectUri: `http://127.0.0.1:${port}${CALLBACK_PATH}`,
    arrival,
    close() {
      clearTimeout(timer);
      server.close();
    },
  };
}

function page(response: ServerResponse, status: number, ok: boolean, message: string): void {
  const title = ok ? "Signed in" : "Sign-in failed";
  response.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    // One page per connection: no idle keep-alive socket holds the process open after sign-in.
    connection: "close",
    "content-security-policy": "default-src 'none'",
  });
  response.end(
    `<!doctype html><meta charset="utf-8"><title>toolkits-mcp: ${title}</title>` +
      // Messages may quote the authorization server's error description, which is untrusted text.
      `<h1>${title}</h1><p>${escapeHtml(message)}</p><p>You can close this tab and return to the terminal.</p>\n`,
  );
}
