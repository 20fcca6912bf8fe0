import type { IncomingMessage } from "node:http";

// The server's own cookies: the /connect session's and the authorization server's consent cookie.
// (`cookie` on npm reads only a name's first value; a browser may send one name twice, see
// connect/session.ts, so they are read here.)

/**
 * A cookie's name here: over an https public URL (`secure`) `__Host-` prefixed, which browsers take
 * only with Secure, path / and no domain, so no other site, a sibling subdomain included, can plant it.
 */
export const cookieName = (name: string, secure: boolean): string => `${secure ? "__Host-" : ""}${name}`;

/**
 * The Set-Cookie line of a cookie for the whole server, kept from scripts and from other sites'
 * requests but top-level navigations (`SameSite=Lax`), for `maxAgeS` seconds (0 clears it),
 * `Secure` over https.
 */
export function setCookie(name: string, value: string, maxAgeS: number, secure: boolean): string {
  return `${name}=${value}; Path=/; Max-Age=${maxAgeS}; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;
}

/** The values of the cookie `name` in a `Cookie` header, in the order sent (a name may come twice). */
export function cookieValues(header: string | null | undefined, name: string): string[] {
  const values: string[] = [];
  for (const part of header?.split(";") ?? []) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) values.push(part.slice(at + 1).trim());
  }
  return values;
}

/** A request carrying only a Node request's cookies: enough to find its browser's /connect session. */
export const cookieRequest = (req: IncomingMessage): Request =>
  new Request("http://localhost/", { headers: { cookie: req.headers.cookie ?? "" } });
