import { createHash } from "node:crypto";

/**
 * A key name's part for a value that must not appear in the clear (a principal, a code, a session
 * id): the first 32 characters of base64url(sha256(value)) — 192 bits, so no two collide.
 */
export function hashKey(value: string): string {
  return createHash("sha256").update(value, "utf8").digest("base64url").slice(0, 32);
}

/** The pseudonym of a person whose principal hashes to `hash` (see `principalHash`). */
export const pseudonymOf = (hash: string): string => hash.slice(0, 12);

/**
 * A short, stable stand-in for a person in log lines, telemetry (`enduser.pseudo.id`) and `admin`:
 * never the principal itself. Kept apart from the store so telemetry can name people without loading it.
 */
export const principalHash = (principal: string): string => pseudonymOf(hashKey(principal));
