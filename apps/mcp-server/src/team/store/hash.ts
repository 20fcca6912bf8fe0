import { createHash } from "node:crypto";

/**
 * A key name's part for a value that must not appear in the clear (a principal, a code, a session
 * id): the first 32 characters of base64url(sha256(value)) — 192 bits, so no two collide.
 */
export function hashKey(value: string): string {
  return createHash("sha256").update(value, "utf8").digest("base64url").slice(0, 32);
}

/**
 * A short, stable stand-in for a person in log lines and telemetry (`enduser.pseudo.id`): never
 * the principal itself. Kept apart from the store so telemetry can name people without loading it.
 */
export const principalHash = (principal: string): string => hashKey(principal).slice(0, 12);
