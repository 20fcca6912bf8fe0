import { newCsrfToken } from "../../web/csrf.js";
import { type CookieSealer, cookieSealer, type StoreKeys } from "../../web/sealed-cookies.js";

/** How long a browser has to finish signing in, in milliseconds (10 minutes). */
export const PENDING_TTL_MS = 10 * 60_000;

/** An OpenID Connect sign-in under way at the issuer: what its answer must match, and the PKCE verifier. */
export interface OidcFlow {
  state: string;
  verifier: string;
  nonce: string;
}

/**
 * What a browser carries between being asked to sign in and being signed in. It travels sealed in
 * the browser's own cookie, never in the store: browsers that never sign in cost the store nothing.
 */
export interface Pending {
  /** The CSRF token of the token sign-in form. */
  csrf: string;
  /** Where to go once signed in: a path on this server. */
  returnTo: string;
  oidc?: OidcFlow;
  /** Epoch milliseconds; the cookie is refused after it, whatever the browser kept. */
  expiresAt: number;
}

/** The additional authenticated data and key-derivation label: nothing else sealed opens as a pending sign-in. */
const LABEL = "toolkits-mcp connect: pending sign-in";

/**
 * Seals pending sign-ins into the session cookie's value (see `cookieSealer`).
 * @throws Error naming the variable when a key is not 32 bytes of base64.
 */
export const pendingSealer = (keys: StoreKeys): CookieSealer<Pending> => cookieSealer<Pending>(keys, LABEL);

/** A new pending sign-in returning to `returnTo`, for PENDING_TTL_MS from `now`. */
export const newPending = (returnTo: string, now = Date.now()): Pending => ({
  csrf: newCsrfToken(),
  returnTo,
  expiresAt: now + PENDING_TTL_MS,
});
