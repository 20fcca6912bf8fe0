import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** A new CSRF token for a form: 24 random bytes, base64url. */
export const newCsrfToken = (): string => randomBytes(24).toString("base64url");

/** Whether a posted form carries the CSRF token `expected` (compared in constant time). */
export function csrfMatches(expected: string, form: URLSearchParams): boolean {
  const presented = form.get("csrf");
  if (!presented) return false;
  // Digests first: timingSafeEqual takes inputs of one length only.
  return timingSafeEqual(digest(presented), digest(expected));
}

const digest = (value: string) => createHash("sha256").update(value).digest();
