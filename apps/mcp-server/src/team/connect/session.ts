import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { CONNECT_PATH } from "../connections.js";
import { hashKey } from "../store/index.js";
import type { ConnectContext } from "./context.js";
import { readForm } from "./respond.js";

/** The browser session cookie: an opaque id; the record it names lives in the store. */
export const SESSION_COOKIE = "toolkits_connect";
/** How long a signed-in browser session lasts, in milliseconds (12 hours). */
export const SESSION_TTL_MS = 12 * 3_600_000;
/** How long a browser has to finish signing in, in milliseconds (10 minutes). */
export const PENDING_TTL_MS = 10 * 60_000;

/** A browser session as stored under `tk:session:<hash(id)>`. */
export interface SessionRecord {
  /** Who signed in; absent while the browser is still signing in. */
  principal?: string;
  /** What to call them on pages: an email, a token's name. */
  display?: string;
  /** The CSRF token every form of this session carries. */
  csrf: string;
  /** Where to go once signed in (a path under /connect). */
  returnTo?: string;
}

export interface Session {
  /** The hash of the session id: its store key's suffix, and what flows bind to. */
  key: string;
  record: SessionRecord;
}

export type SignedInSession = Session & { record: SessionRecord & { principal: string } };

export const isSignedIn = (session: Session | undefined): session is SignedInSession =>
  session?.record.principal !== undefined;

const storeKey = (key: string) => `tk:session:${key}`;
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/** The session the request's cookie names, if it is still live. */
export async function currentSession(ctx: ConnectContext, request: Request): Promise<Session | undefined> {
  const id = cookieValue(request.headers.get("cookie"), SESSION_COOKIE);
  if (!id || !SESSION_ID.test(id)) return undefined;
  const key = hashKey(id);
  const record = await ctx.store.get<SessionRecord>(storeKey(key));
  return record && { key, record };
}

/**
 * Stores a new session under a fresh id (never reusing one a browser had before signing in, so a
 * planted cookie cannot become a signed-in session) and returns it with the cookie that carries it.
 */
export async function newSession(
  ctx: ConnectContext,
  record: Omit<SessionRecord, "csrf">,
  ttlMs: number,
): Promise<{ session: Session; cookie: string }> {
  const id = randomBytes(32).toString("base64url");
  const session: Session = {
    key: hashKey(id),
    record: { ...record, csrf: randomBytes(24).toString("base64url") },
  };
  await ctx.store.set(storeKey(session.key), session.record, ttlMs);
  return { session, cookie: sessionCookie(ctx, id, Math.floor(ttlMs / 1000)) };
}

export async function endSession(ctx: ConnectContext, session: Session): Promise<void> {
  await ctx.store.delete(storeKey(session.key));
}

function sessionCookie(ctx: ConnectContext, id: string, maxAgeS: number): string {
  const secure = ctx.secureCookies ? "; Secure" : "";
  return `${SESSION_COOKIE}=${id}; Path=${CONNECT_PATH}; Max-Age=${maxAgeS}; HttpOnly; SameSite=Lax${secure}`;
}

/** Whether a posted form carries this session's CSRF token (compared in constant time). */
export function csrfMatches(session: Session, form: URLSearchParams): boolean {
  const presented = form.get("csrf");
  if (!presented) return false;
  return timingSafeEqual(digest(presented), digest(session.record.csrf));
}

/** The fields of a form posted with this session's CSRF token; `undefined` for any other request. */
export async function sessionForm(session: Session, request: Request): Promise<URLSearchParams | undefined> {
  const form = await readForm(request);
  return form && csrfMatches(session, form) ? form : undefined;
}

const digest = (value: string) => createHash("sha256").update(value).digest();

function cookieValue(header: string | null, name: string): string | undefined {
  for (const part of header?.split(";") ?? []) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}
