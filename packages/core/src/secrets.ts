import { inspect } from "node:util";

/**
 * Every secret value ever wrapped in this process, in each form it travels in. `redact()` scrubs
 * them from any text, so an upstream that echoes a credential back in an error body, raw or
 * encoded, cannot leak it through a message or a log.
 */
const knownForms = new Map<string, number>();
/**
 * The secret values registered, oldest first, with their forms. A server acting for many people
 * wraps every token it is handed and every refreshed one; past MAX_REGISTERED values the oldest
 * (long expired, in practice) are forgotten, so memory and the cost of `redact()` stay bounded.
 */
const registered = new Map<string, readonly string[]>();
const MAX_REGISTERED = 4_096;
/** Whether some secret is shorter than MIN_ANYWHERE_LENGTH, so base64 runs must be decoded to find it. */
let hasShortSecret = false;
/**
 * Forms at least this long are redacted wherever they occur. Shorter ones would also match inside
 * ordinary words and ids, so they are redacted only as whole tokens and after an auth scheme.
 */
const MIN_ANYWHERE_LENGTH = 6;
const REDACTED = "[redacted]";
/** Characters that continue a token: a short form next to one of them is part of something else. */
const TOKEN_CHAR = "[\\p{L}\\p{N}_-]";
/** Where a credential follows an auth scheme (`Bearer x`, `Token token=x`, `Basic x`): always redacted. */
const AFTER_SCHEME = "(?<=\\b(?:[Bb]earer|[Bb]asic) +|\\b[Tt]oken +token=[\"']?)";

/**
 * The texts a credential appears as when echoed back: raw, JSON-escaped, percent-encoded (either
 * hex case), form-encoded, and base64 or base64url whole. Inside a longer base64 text (a `Basic`
 * header holding `user:secret`) its encoding depends on where it starts, so the characters it
 * fixes at each of the three byte alignments are included too, when long enough to be telling.
 */
function formsOf(value: string): Set<string> {
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

const isTelling = (form: string): boolean => form.length >= MIN_ANYWHERE_LENGTH;
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

/** Registers every form of a secret value for `redact()`; an empty value has nothing to hide. */
function register(value: string): void {
  if (!value) return;
  const forms = registered.get(value);
  registered.delete(value);
  if (forms) return void registered.set(value, forms);
  const added = [...formsOf(value)];
  registered.set(value, added);
  for (const form of added) knownForms.set(form, (knownForms.get(form) ?? 0) + 1);
  hasShortSecret ||= !isTelling(value);
  if (registered.size > MAX_REGISTERED) forgetOldest();
}

/** Forgets the value registered longest ago, keeping forms another value shares. */
function forgetOldest(): void {
  const [oldest] = registered;
  if (!oldest) return;
  registered.delete(oldest[0]);
  for (const form of oldest[1]) {
    const count = (knownForms.get(form) ?? 1) - 1;
    if (count > 0) knownForms.set(form, count);
    else knownForms.delete(form);
  }
}

/**
 * A credential that never prints. `String(secret)`, template strings, `JSON.stringify` and
 * `util.inspect` all give `[redacted NAME]`; only `reveal()` returns the value, and callers use it
 * solely to build an upstream request header.
 */
export class Secret {
  readonly #value: string;

  /**
   * @param name the configuration name shown in place of the value (for example `MARKETING_API_KEY`).
   * @param value the credential itself; registered for `redact()`.
   */
  constructor(
    readonly name: string,
    value: string,
  ) {
    this.#value = value;
    register(value);
  }

  /** The raw value, for an upstream request header only. */
  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return `[redacted ${this.name}]`;
  }

  toJSON(): string {
    return this.toString();
  }

  [inspect.custom](): string {
    return this.toString();
  }
}

/**
 * Replaces every known secret value in `text`, in any of the forms it travels in (raw, JSON-escaped,
 * URL-encoded, base64), with `[redacted]`. A form of 6 or more characters is replaced wherever it
 * occurs. A shorter one (a secret of under 6 characters) is replaced where it stands as a whole
 * token, not touching a letter, digit, `_` or `-`, and always right after `Bearer `, `Basic ` or
 * `Token token=`; so a 4-character key is scrubbed from "key k9Zq is invalid" but an unrelated
 * word containing it is left alone. A base64 run whose decoded text holds a secret by these rules
 * (a `Basic` credential of `user:k9Zq`) is replaced whole.
 */
export function redact(text: string): string {
  if (!knownForms.size) return text;
  const scrubbed = redactForms(text);
  // A long secret's base64 is already caught by its forms; decoding every run costs about 3 µs.
  return hasShortSecret
    ? scrubbed.replace(BASE64_RUN, (run) => (carriesSecret(run) ? REDACTED : run))
    : scrubbed;
}

/** A run of base64 or base64url characters long enough to encode a credential with something else. */
const BASE64_RUN = /[A-Za-z0-9+/_-]{8,}={0,2}/g;

/** Text a credential could be: no control characters and no bytes that are not UTF-8. */
const PLAIN_TEXT = /^[^\p{Cc}\uFFFD]*$/u;

/** Whether `run` is base64 of plain text holding a secret; binary (any other word decoded) is not. */
function carriesSecret(run: string): boolean {
  const decoded = Buffer.from(run, "base64").toString("utf8");
  return PLAIN_TEXT.test(decoded) && redactForms(decoded) !== decoded;
}

function redactForms(text: string): string {
  const present = [...knownForms.keys()].filter((form) => text.includes(form));
  return present.length ? text.replace(formsPattern(present), REDACTED) : text;
}

/** One pattern for the forms found, longest first so a whole encoding wins over a part of it. */
function formsPattern(forms: readonly string[]): RegExp {
  const alternatives = [...forms]
    .sort((a, b) => b.length - a.length)
    .map((form) => {
      const literal = form.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      if (isTelling(form)) return literal;
      return `${AFTER_SCHEME}${literal}|(?<!${TOKEN_CHAR})${literal}(?!${TOKEN_CHAR})`;
    });
  return new RegExp(alternatives.join("|"), "gu");
}

/**
 * Looks up a secret's raw value by name; `undefined` when it is not configured.
 * Hosts choose the source: the environment, a map, a vault call.
 */
export type SecretProvider = (name: string) => string | undefined | Promise<string | undefined>;

/** Secrets from environment variables of the same name (empty strings count as absent). */
export function secretsFromEnv(env: NodeJS.ProcessEnv = process.env): SecretProvider {
  return (name) => env[name] || undefined;
}

/** Secrets from a fixed map, for tests and embedding apps. */
export function secretsFromMap(values: Readonly<Record<string, string | undefined>>): SecretProvider {
  // Own names only: a lookup of `constructor` must not find Object's.
  return (name) => (Object.hasOwn(values, name) ? values[name] || undefined : undefined);
}

/** Secrets from a function, e.g. a call to a vault; the function may be async. */
export function secretsFromFunction(lookup: SecretProvider): SecretProvider {
  return lookup;
}

/** The first provider that knows a name wins. */
export function firstSecret(...providers: SecretProvider[]): SecretProvider {
  return async (name) => {
    for (const provider of providers) {
      const value = await provider(name);
      if (value) return value;
    }
    return undefined;
  };
}

/**
 * Access tokens for OAuth providers (`pager`, `google`, …) covering the given scopes;
 * `undefined` when the user has not signed in to that provider.
 */
export type TokenProvider = (
  provider: string,
  scopes: readonly string[],
) => string | undefined | Promise<string | undefined>;

/** The environment variable that carries a provider's access token: `pager` → `PAGER_ACCESS_TOKEN`. */
export function accessTokenVariable(provider: string): string {
  return `${provider.toUpperCase()}_ACCESS_TOKEN`;
}

/** Tokens from `<PROVIDER>_ACCESS_TOKEN` environment variables. */
export function tokensFromEnv(env: NodeJS.ProcessEnv = process.env): TokenProvider {
  return (provider) => env[accessTokenVariable(provider)] || undefined;
}
