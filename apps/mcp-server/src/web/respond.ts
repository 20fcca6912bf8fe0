import type { Html } from "./html.js";

/**
 * Headers on every page's response (/connect, the authorization server's; the front page's with
 * its own CSP): nothing is cached or sent to another origin as a referrer (URLs carry single-use
 * codes; within the origin it must go, or a browser posts a form with `Origin: null`, which the
 * Origin guard refuses), no script or framing is allowed (`X-Frame-Options` for browsers that
 * predate CSP's `frame-ancestors`), and forms post back only here.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "cache-control": "no-store",
  "referrer-policy": "same-origin",
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
};

/**
 * What a response adds to the security headers: its cookies (Set-Cookie lines), other headers
 * (these replace security headers of the same name).
 */
export interface ResponseExtras {
  cookie?: string | readonly string[];
  headers?: Record<string, string>;
}

function headersWith(extras: ResponseExtras): Headers {
  const headers = new Headers({ ...SECURITY_HEADERS, ...extras.headers });
  for (const cookie of [extras.cookie ?? []].flat()) if (cookie) headers.append("set-cookie", cookie);
  return headers;
}

/** An HTML page with the security headers. */
export function page(status: number, body: Html, extras: ResponseExtras = {}): Response {
  const headers = headersWith(extras);
  headers.set("content-type", "text/html; charset=utf-8");
  return new Response(body.markup, { status, headers });
}

/** A redirect with the security headers: 302 after a GET, 303 after a form post. */
export function redirect(location: string, status: 302 | 303, extras: ResponseExtras = {}): Response {
  const headers = headersWith(extras);
  headers.set("location", location);
  return new Response(null, { status, headers });
}

/** Forms here hold a token, a key and a region, or a client id: far less than this, in bytes. */
const MAX_FORM_BYTES = 16_384;

/**
 * The fields of a posted `application/x-www-form-urlencoded` form; `undefined` when the body is
 * another type or too large.
 */
export async function readForm(request: Request): Promise<URLSearchParams | undefined> {
  const type = request.headers.get("content-type") ?? "";
  if (!type.toLowerCase().startsWith("application/x-www-form-urlencoded")) return undefined;
  if (Number(request.headers.get("content-length") ?? 0) > MAX_FORM_BYTES) return undefined;
  const text = await request.text();
  if (Buffer.byteLength(text) > MAX_FORM_BYTES) return undefined;
  return new URLSearchParams(text);
}
