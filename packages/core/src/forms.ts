/**
 * Forms at least this long are redacted wherever they occur. Shorter ones would also match inside
 * ordinary words and ids, so they are redacted only as whole tokens and after an auth scheme.
 */
export const MIN_ANYWHERE_LENGTH = 6;

/** Whether a form is long enough to be redacted wherever it occurs (see MIN_ANYWHERE_LENGTH). */
export const isTelling = (form: string): boolean => form.length >= MIN_ANYWHERE_LENGTH;

/**
 * The texts a credential appears as when echoed back: raw, JSON-escaped, percent-encoded (either
 * hex case), form-encoded, and base64 or base64url whole. Inside a longer base64 text (a `Basic`
 * header holding `user:secret`) its encoding depends on where it starts, so the characters it
 * fixes at each of the three byte alignments are included too, when long enough to be telling.
 */
export function formsOf(value: string): Set<string> {
  const bytes = Buffer.from(value);
  const percent = encodeURIComponent(value);
  const json = JSON.stringify(value).slice(1, -1);
  const base64 = [bytes.toString("base64"), ...base64Cores(bytes).filter(isTelling)];
  return new Set([
    value,
    json,
    json.replaceAll("/", "\\/"),
    percent,
    percent.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
    new URLSearchParams({ v: value }).toString().slice(2),
    ...base64,
    ...base64.map(toBase64Url),
  ]);
}

const toBase64Url = (base64: string): string =>
  base64.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");

/** The base64 characters `bytes` always encode to when they start 0, 1 or 2 bytes into a 3-byte group. */
function base64Cores(bytes: Buffer): string[] {
  return [0, 1, 2].map((shift) => {
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString("base64");
    // Character i carries bits 6i to 6i+6; keep those lying wholly inside the value's bits.
    return encoded.slice(Math.ceil((8 * shift) / 6), Math.floor((8 * (shift + bytes.length)) / 6));
  });
}
