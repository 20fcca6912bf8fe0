import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import type { Logger } from "@toolkits/core";
import { StoreUnavailable } from "./kv.js";

/** AES-256-GCM: a 32-byte key, a 12-byte nonce (GCM's native size), a 16-byte tag. */
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * The record format this server writes, and the newest it reads. A record's first part names its
 * format: `v1` (written before formats were versioned, and by `seal` for cookies: the additional
 * authenticated data is the key name alone) or `v2` (the AAD is `v2.<key name>`, so the format is
 * authenticated too: a record relabelled with another format does not open). A replica meeting a
 * newer format refuses it (NewerRecordFormat) rather than misreading it; an older one opens and is
 * marked stale, so that it is written again in this format.
 */
export const RECORD_FORMAT = 2;
const CURRENT = `v${RECORD_FORMAT}`;

/**
 * The additional authenticated data of a record in `format` under the key name `name`: the name
 * alone in format 1, `v<format>.<name>` from format 2 on. Key names start with `tk:`, never with
 * `v<n>.`, so no two formats share an AAD.
 */
const aadOf = (format: number, name: string) => (format === 1 ? name : `v${format}.${name}`);

/** The format a record's first part names (`v2` is 2), or undefined when it names none. */
function formatOf(header: string | undefined): number | undefined {
  if (header === CURRENT) return RECORD_FORMAT;
  const digits = header && /^v([1-9]\d{0,5})$/.exec(header)?.[1];
  return digits ? Number(digits) : undefined;
}

/**
 * A record in a format newer than this server reads: a replica of a newer version wrote it. A
 * StoreUnavailable, so a tool answers `unavailable` (retryable: another replica may be upgraded)
 * and the record is left as it is.
 */
export class NewerRecordFormat extends StoreUnavailable {
  constructor(readonly format: number) {
    super(`a record in format ${format}`);
    this.name = "NewerRecordFormat";
    this.message = `The credential store holds a record in format ${format}, which a newer version of this server wrote; this replica reads formats up to ${RECORD_FORMAT} until it is upgraded.`;
  }
}

/** Which setting a key came from, for error messages. */
export type KeyVariable = "MCP_STORE_KEY" | "MCP_STORE_KEY_PREVIOUS";

/**
 * A record opened: its plaintext, and whether it should be sealed again (it was sealed under the
 * previous key, or in an older format).
 */
export interface Opened {
  plaintext: string;
  stale: boolean;
}

/**
 * Seals strings for the store and opens them again. A record is
 * `v2.<key id>.<iv>.<ciphertext>.<tag>` (its format, then base64url parts; see RECORD_FORMAT); the
 * key id is the first 8 characters of base64url(sha256(key)), so a record names the key that opens
 * it without revealing it. The record's format and key name are the additional authenticated data:
 * a record copied under another key name, or relabelled with another format, does not open.
 */
export interface Sealer {
  /** The current key's id (8 characters). */
  readonly keyId: string;
  /** `plaintext` sealed in RECORD_FORMAT under the current key, bound to the key name `name`. */
  seal(name: string, plaintext: string): string;
  /**
   * The plaintext of `record` stored under `name`; `undefined` when it does not open: sealed under
   * a key this process does not have (logged once per key id), bound to another name, altered, or
   * not a sealed record at all (logged once). Costs one comparison beyond decrypting: the format is
   * read from the record's first part.
   * @throws NewerRecordFormat when the record is in a format newer than RECORD_FORMAT (logged once
   *   per format, saying to upgrade this replica).
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
    seal: (name, plaintext) => sealAs(RECORD_FORMAT, key, id, name, plaintext),
    open(name, record) {
      const parts = record.split(".");
      const [header, kid, iv, ciphertext, tag] = parts;
      const format = formatOf(header);
      // Before anything else: a newer format may have other parts.
      if (format !== undefined && format > RECORD_FORMAT) {
        warnOnce(
          `format:${format}`,
          `A credential store record is in format ${format}, newer than this server reads (up to ${RECORD_FORMAT}): a replica of a newer version wrote it. Upgrade this replica; until then, calls that need such records answer unavailable.`,
          { format, reads_up_to: RECORD_FORMAT },
        );
        throw new NewerRecordFormat(format);
      }
      if (format === undefined || !kid || !iv || ciphertext === undefined || !tag || parts.length !== 5) {
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
      const plaintext = open(entry.key, aadOf(format, name), iv, ciphertext, tag);
      if (plaintext === undefined) {
        warnOnce("forged", "A credential store record does not open under its key name; ignoring it.", {
          key: name,
        });
        return undefined;
      }
      return { plaintext, stale: entry.stale || format < RECORD_FORMAT };
    },
  };
}

/**
 * `plaintext` sealed under `key` (named `kid`), bound to `name`, in format 1
 * (`v1.<kid>.<iv>.<ciphertext>.<tag>`, the AAD `name`): how cookies are sealed. Store records are
 * sealed in RECORD_FORMAT by `Sealer.seal`.
 */
export function seal(key: Buffer, kid: string, name: string, plaintext: string): string {
  return sealAs(1, key, kid, name, plaintext);
}

/** `plaintext` sealed under `key` (named `kid`) in `format`, bound to the key name `name`. */
function sealAs(format: number, key: Buffer, kid: string, name: string, plaintext: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(aadOf(format, name), "utf8"));
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  const parts = [iv, ciphertext, cipher.getAuthTag()].map((part) => part.toString("base64url"));
  return [`v${format}`, kid, ...parts].join(".");
}

/**
 * The plaintext, or `undefined` when authentication fails (wrong name, altered bytes, bad sizes).
 * `name` is the additional authenticated data: the key name for a format-1 record or a cookie.
 */
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
