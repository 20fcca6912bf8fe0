import { randomBytes } from "node:crypto";
import { telemetry } from "../../telemetry/index.js";
import { cookieName, cookieValues, setCookie } from "../../web/cookies.js";
import { csrfMatches, newCsrfToken } from "../../web/csrf.js";
import { readForm, redirect } from "../../web/respond.js";
import { CONNECT_PATH } from "../connections.js";
import { rememberSignIn } from "../people.js";
import { endEach, hashKey, type TeamStore } from "../store/index.js";
import type { ConnectContext } from "./context.js";
import type { Pending } from "./pending.js";

/**
 * The browser's one cookie: a signed-in session's opaque id, whose record lives in the store, or,
 * while signing in, the sealed pending sign-in (see `Pending`). Its path is the whole server, as
 * the toolkits' pages (the sheets file picker) serve only the signed-in person their own. Over an
 * https public URL it is `__Host-` (Secure, path /, no domain): no other site, a sibling subdomain
 * included, can plant one, so a browser is never signed in as someone else's session.
 */
export const sessionCookieName = (secure: boolean): string => cookieName("toolkits_connect", secure);
/** How long a signed-in browser session lasts, in milliseconds (12 hours). */
export const SESSION_TTL_MS = 12 * 3_600_000;

/**
 * A signed-in browser session as stored under `tk:signed-in:<hash(id)>`. (Earlier versions kept
 * sessions, signed in or not, under `tk:session:`, on the path /connect; those no longer count.)
 */
export interface SessionRecord {
  /** Who signed in. */
  principal: string;
  /** What to call them on pages: an email, a token's name. */
  display?: string;
  /** The CSRF token every form of this session carries. */
  csrf: string;
}

export interface SignedInSession {
  /** The hash of the session id: its store key's suffix. */
  key: string;
  record: SessionRecord;
}

const storeKey = (key: string) => `tk:signed-in:${key}`;
/**
 * The index of a person's signed-in sessions (members: the hashes of the session ids), by the
 * person's hash, so `admin revoke` ends them all without walking the store.
 */
export const personSessions = (personHash: string): string => `tk:person-sessions:${personHash}`;
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/** The signed-in session the request's cookie names, if it is still live. @throws StoreUnavailable */
export async function currentSession(
  ctx: ConnectContext,
  request: Request,
): Promise<SignedInSession | undefined> {
  for (const id of sessionCookies(ctx, request).filter((value) => SESSION_ID.test(value))) {
    const key = hashKey(id);
    const record = await ctx.store.get<SessionRecord>(storeKey(key));
    if (record) return { key, record };
  }
  return undefined;
}

/** The sign-in the request's cookie carries, if it opens and has not expired. */
export function currentPending(ctx: ConnectContext, request: Request): Pending | undefined {
  // Session ids have no dots; sealed values do.
  const sealed = sessionCookies(ctx, request).filter((value) => value.includes("."));
  return sealed.map((value) => ctx.cookies.open(value)).find((pending) => pending !== undefined);
}

/** The cookie carrying `pending`, for the rest of its life. */
export function pendingCookie(ctx: ConnectContext, pending: Pending): string {
  return cookie(ctx, ctx.cookies.seal(pending), Math.ceil((pending.expiresAt - Date.now()) / 1000));
}

/**
 * Signs the browser in, then on to where it was going: a new session in the store under a fresh
 * id (never one the browser had before, so a planted cookie cannot become a signed-in session),
 * whose cookie replaces the pending one.
 */
export async function signIn(
  ctx: ConnectContext,
  principal: string,
  display: string,
  pending: Pending,
): Promise<Response> {
  const id = randomBytes(32).toString("base64url");
  telemetry()?.authStep("sign-in", "ok");
  const record: SessionRecord = { principal, display, csrf: newCsrfToken() };
  const key = hashKey(id);
  await ctx.store.set(storeKey(key), record, SESSION_TTL_MS);
  await ctx.store.index(personSessions(hashKey(principal))).add(key, SESSION_TTL_MS);
  await rememberSignIn(ctx.store, principal, display);
  const session = cookie(ctx, id, SESSION_TTL_MS / 1000);
  return redirect(`${ctx.base}${safeReturnPath(pending.returnTo)}`, 303, { cookie: session });
}

/**
 * The longest path a browser is sent back to after signing in; a longer one goes to /connect. It
 * travels in the pending cookie, which stays under 2 KB with it.
 */
export const MAX_RETURN_PATH = 1_024;

/**
 * Where to go once signed in: a path on this server (never another site: it is appended to the
 * public URL), else /connect.
 */
export function safeReturnPath(path: string | undefined): string {
  return path && path.length <= MAX_RETURN_PATH && /^\/(?![/\\])/.test(path) ? path : CONNECT_PATH;
}

/** Ends a session; the cookie that clears it from the browser. */
export async function endSession(ctx: ConnectContext, session: SignedInSession): Promise<string> {
  await ctx.store.delete(storeKey(session.key));
  await ctx.store.index(personSessions(hashKey(session.record.principal))).remove(session.key);
  return cookie(ctx, "", 0);
}

/**
 * Ends every signed-in session of the person whose hash is `personHash`, on every browser.
 * Resolves to how many there were. @throws StoreUnavailable
 */
export const endPersonSessions = (store: TeamStore, personHash: string): Promise<number> =>
  endEach(store, personSessions(personHash), (key) => store.delete(storeKey(key)));

const cookie = (ctx: ConnectContext, value: string, maxAgeS: number): string =>
  setCookie(sessionCookieName(ctx.secureCookies), value, maxAgeS, ctx.secureCookies);

/** The fields of a form posted with this session's CSRF token; `undefined` for any other request. */
export async function sessionForm(
  session: SignedInSession,
  request: Request,
): Promise<URLSearchParams | undefined> {
  const form = await readForm(request);
  return form && csrfMatches(session.record.csrf, form) ? form : undefined;
}

/**
 * The values the browser sent under the session cookie's name, at most two: a browser sends two
 * while one an earlier version set (on the path /connect only, naming a session that no longer
 * counts) lives. Over https only the `__Host-` name counts.
 */
const sessionCookies = (ctx: ConnectContext, request: Request): string[] =>
  cookieValues(request.headers.get("cookie"), sessionCookieName(ctx.secureCookies)).slice(0, 2);
