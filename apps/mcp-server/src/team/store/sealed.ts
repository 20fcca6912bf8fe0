import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import type { Logger } from "@toolkits/core";

/** AES-256-GCM: a 32-byte key, a 12-byte nonce (GCM's native size), a 16-byte tag. */
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const VERSION = "v1";

/** Which setting a key came from, for error messages. */
export type KeyVariable = "MCP_STORE_KEY" | "MCP_STORE_KEY_PREVIOUS";

/** A record opened: its plaintext, and whether it was sealed under the previous key (so should be re-sealed). */
export interface Opened {
  plaintext: string;
  stale: boolean;
}

/**
 * Seals strings for the store and opens them again. A record is
 * `v1.<key id>.<iv>.<ciphertext>.<tag>` (base64url parts); the key id is the first 8 characters of
 * base64url(sha256(key)), so a record names the key that opens it without revealing it. The record's
 * key name is the additional authenticated data: a record copied under another key name does not open.
 */
export interface Sealer {
  /** The current key's id (8 characters). */
  readonly keyId: string;
  /** `plaintext` sealed under the current key, bound to the key name `name`. */
  seal(name: string, plaintext: string): string;
  /**
   * The plaintext of `record` stored under `name`; `undefined` when it does not open: sealed under
   * a key this process does not have (logged once per key id), bound to another name, altered, or
   * not a sealed record at all (logged once).
   */
  open(name: string, record: string): Opened | undefined;
}

/**
 * The fewest different byte values a key may have. 32 random bytes have about 30; fewer than 16
 * happens to one random key in 3·10^16, but to every key made by hand (all zeros, a repeated
 * pattern, text).
 */
const MIN_DISTINCT_BYTES = 16;

/**
 * Decodes a store key: 32 random bytes in base64 (or base64url), as `openssl rand -base64 32`
 * prints.
 * @throws Error naming `variable` (never the value) when it is not 32 bytes, or when it has fewer
 *   than 16 different byte values (all zeros, a repeated pattern: not random), saying how to make one.
 */
export function parseKey(value: string, variable: KeyVariable): Buffer {
  const text = value.trim();
  const bytes = /^[A-Za-z0-9+/_-]+={0,2}$/.test(text) ? Buffer.from(text, "base64") : undefined;
  const distinct = new Set(bytes).size;
  if (bytes?.length === KEY_BYTES && distinct >= MIN_DISTINCT_BYTES) return bytes;
  const found = !bytes
    ? "it is not base64"
    : bytes.length !== KEY_BYTES
      ? `it decodes to ${bytes.length} bytes`
      : `it has only ${distinct} different byte value${distinct === 1 ? "" : "s"}, so it was not made at random`;
  throw new Error(
    `${variable} must be ${KEY_BYTES} random bytes in base64 (${found}); make one with \`openssl rand -base64 32\`.`,
  );
}

/** The first 8 characters of base64url(sha256(key)): names a key in records and logs, reveals nothing. */
export function keyId(key: Buffer): string {
  return createHash("sha256").update(key).digest("base64url").slice(0, 8);
}

/**
 * A sealer for the current key and, during a rotation, the previous one (which only opens).
 * Keys are base64 strings (see `parseKey`, which this throws from); warnings go to `logger`.
 */
export function createSealer(current: string, previous: string | undefined, logger: Logger): Sealer {
  const key = parseKey(current, "MCP_STORE_KEY");
  const keys = new Map<string, { key: Buffer; stale: boolean }>([[keyId(key), { key, stale: false }]]);
  if (previous?.trim()) {
    const old = parseKey(previous, "MCP_STORE_KEY_PREVIOUS");
    // The same key given twice opens records as current ones.
    if (!keys.has(keyId(old))) keys.set(keyId(old), { key: old, stale: true });
  }
  const warned = new Set<string>();
  const warnOnce = (topic: string, message: string, fields: Record<string, unknown>) => {
    if (warned.has(topic)) return;
    warned.add(topic);
    logger.warn(message, fields);
  };
  const id = keyId(key);
  return {
    keyId: id,
    seal: (name, plaintext) => seal(key, id, name, plaintext),
    open(name, record) {
      const parts = record.split(".");
      const [version, kid, iv, ciphertext, tag] = parts;
      if (version !== VERSION || !kid || !iv || ciphertext === undefined || !tag || parts.length !== 5) {
        warnOnce("malformed", "A credential store record is not sealed; ignoring it.", { key: name });
        return undefined;
      }
      const entry = keys.get(kid);
      if (!entry) {
        warnOnce(
          `kid:${kid}`,
          "A credential store record is sealed under a key this server does not have (set MCP_STORE_KEY_PREVIOUS to the key before the last rotation); ignoring it.",
          { key_id: kid },
        );
        return undefined;
      }
      const plaintext = open(entry.key, name, iv, ciphertext, tag);
      if (plaintext === undefined) {
        warnOnce("forged", "A credential store record does not open under its key name; ignoring it.", {
          key: name,
        });
        return undefined;
      }
      return { plaintext, stale: entry.stale };
    },
  };
}

/** `plaintext` sealed under `key` (named `kid` in the record), bound to `name`: a record as `Sealer.seal` makes one. */
export function seal(key: Buffer, kid: string, name: string, plaintext: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(name, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  const parts = [iv, ciphertext, cipher.getAuthTag()].map((part) => part.toString("base64url"));
  return [VERSION, kid, ...parts].join(".");
}

/** The plaintext, or `undefined` when authentication fails (wrong name, altered bytes, bad sizes). */
export function open(
  key: Buffer,
  name: string,
  iv: string,
  ciphertext: string,
  tag: string,
): string | undefined {
  const ivBytes = Buffer.from(iv, "base64url");
  const tagBytes = Buffer.from(tag, "base64url");
  if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, ivBytes, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(name, "utf8"));
    decipher.setAuthTag(tagBytes);
    const bytes = Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]);
    return bytes.toString("utf8");
  } catch {
    return undefined;
  }
}
