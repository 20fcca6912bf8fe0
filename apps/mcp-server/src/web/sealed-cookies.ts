import { hkdfSync } from "node:crypto";
import { type KeyVariable, keyId, open, parseKey, seal } from "../team/store/sealed.js";

/** `MCP_STORE_KEY` and, during a rotation, `MCP_STORE_KEY_PREVIOUS` (base64, as the store takes them). */
export interface StoreKeys {
  key: string;
  previousKey?: string;
}

/**
 * Seals what a browser carries between two pages (a pending sign-in, a consent page's answer) into
 * cookie values and opens them again.
 */
export interface CookieSealer<T extends { expiresAt: number }> {
  /** The cookie value (`v1.<key id>.<iv>.<ciphertext>.<tag>`, base64url parts) carrying `value`. */
  seal(value: T): string;
  /** What a cookie value carries; `undefined` when it does not open (forged, altered, sealed elsewhere) or expired. */
  open(value: string, now?: number): T | undefined;
}

/**
 * A sealer under AES-256-GCM keys derived (HKDF-SHA256) from the store's keys, so every replica
 * opens what another sealed, and a rotation keeps what browsers carry working. The store key is
 * never used as such, and `label` (one per kind of cookie) binds the keys and the sealed values:
 * a sealed cookie opens as nothing else.
 * @throws Error naming the variable when a key is not 32 bytes of base64 (see `parseKey`).
 */
export function cookieSealer<T extends { expiresAt: number }>(
  keys: StoreKeys,
  label: string,
): CookieSealer<T> {
  const named: [string | undefined, KeyVariable][] = [
    [keys.key, "MCP_STORE_KEY"],
    [keys.previousKey, "MCP_STORE_KEY_PREVIOUS"],
  ];
  const derived = named
    .filter((entry): entry is [string, KeyVariable] => Boolean(entry[0]?.trim()))
    .map(([value, variable]) => {
      const key = Buffer.from(hkdfSync("sha256", parseKey(value, variable), "", label, 32));
      return { key, kid: keyId(key) };
    });
  const [current] = derived;
  if (!current) throw new Error("MCP_STORE_KEY is not set.");
  return {
    seal: (sealed) => seal(current.key, current.kid, label, JSON.stringify(sealed)),
    open(value, now = Date.now()) {
      const [, kid, iv, ciphertext, tag, ...rest] = value.split(".");
      const entry = derived.find((each) => each.kid === kid);
      if (!entry || !iv || ciphertext === undefined || !tag || rest.length) return undefined;
      const text = open(entry.key, label, iv, ciphertext, tag);
      const opened = text === undefined ? undefined : (JSON.parse(text) as T);
      return opened && opened.expiresAt > now ? opened : undefined;
    },
  };
}
