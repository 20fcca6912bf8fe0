import { formsOf, isTelling, MIN_ANYWHERE_LENGTH } from "./forms.js";

const REDACTED = "[redacted]";
/** Characters that continue a token: a short form next to one of them is part of something else. */
const TOKEN_CHAR = "[\\p{L}\\p{N}_-]";
// Sticky, so each is tried at one position: where a credential follows an auth scheme (`Bearer x`,
// `Token token=x`, `Basic x`), where no token character comes before, and where none follows.
const AFTER_SCHEME = /(?<=\b(?:[Bb]earer|[Bb]asic) +|\b[Tt]oken +token=["']?)/uy;
const NO_TOKEN_BEFORE = new RegExp(`(?<!${TOKEN_CHAR})`, "uy");
const NO_TOKEN_AFTER = new RegExp(`(?!${TOKEN_CHAR})`, "uy");

/**
 * A set of secret values and every form they travel in (see `formsOf`), indexed so that finding
 * them in a text costs one lookup per character however many are known: forms of 6 or more
 * characters by their last 6 (a credential's prefix is often shared: `ya29.`, `sk_live_`; its end
 * rarely is), shorter ones whole. Past `capacity` values, the one registered longest ago is
 * forgotten, so memory and the work per match stay bounded.
 */
export class Redactor {
  /** The values, least recently registered first, with their forms. */
  readonly #values = new Map<string, readonly string[]>();
  /** How many values have each form (values can share one). */
  readonly #counts = new Map<string, number>();
  readonly #long = new Map<string, Set<string>>();
  readonly #short = new Set<string>();

  /** @param capacity how many values are remembered at most. */
  constructor(readonly capacity: number) {}

  /** How many values are registered. */
  get size(): number {
    return this.#values.size;
  }

  /** Whether a value under 6 characters is registered, so base64 runs must be decoded to find it. */
  get hasShort(): boolean {
    return this.#short.size > 0;
  }

  /** Registers every form of `value`, or makes it the most recent again; an empty value has nothing to hide. */
  add(value: string): void {
    if (!value) return;
    const forms = this.#values.get(value);
    this.#values.delete(value);
    if (forms) return void this.#values.set(value, forms);
    const added = [...formsOf(value)];
    this.#values.set(value, added);
    for (const form of added) this.#count(form, 1);
    if (this.#values.size > this.capacity) this.#forgetOldest();
  }

  /** The forms of 6+ characters ending with `anchor` (6 characters), if any. */
  endingWith(anchor: string): ReadonlySet<string> | undefined {
    return this.#long.get(anchor);
  }

  /** Whether `form`, under 6 characters, is a form of a value here. */
  hasShortForm(form: string): boolean {
    return this.#short.has(form);
  }

  /** Forgets the value registered longest ago, keeping forms another value shares. */
  #forgetOldest(): void {
    const [oldest] = this.#values;
    if (!oldest) return;
    this.#values.delete(oldest[0]);
    for (const form of oldest[1]) this.#count(form, -1);
  }

  #count(form: string, delta: 1 | -1): void {
    const count = (this.#counts.get(form) ?? 0) + delta;
    if (count > 0) this.#counts.set(form, count);
    else this.#counts.delete(form);
    if (count > 1 || (count === 1 && delta < 0)) return;
    if (!isTelling(form)) {
      if (count) this.#short.add(form);
      else this.#short.delete(form);
      return;
    }
    const anchor = form.slice(-MIN_ANYWHERE_LENGTH);
    const bucket = this.#long.get(anchor) ?? new Set<string>();
    if (count) bucket.add(form);
    else bucket.delete(form);
    if (bucket.size) this.#long.set(anchor, bucket);
    else this.#long.delete(anchor);
  }
}

/**
 * `text` with every form of every value in `sets` replaced by `[redacted]`: at each position the
 * longest form found there wins, so a whole encoding wins over a part of it. A form of 6 or more
 * characters is replaced wherever it occurs; a shorter one where it stands as a whole token, not
 * touching a letter, digit, `_` or `-`, and always right after `Bearer `, `Basic ` or
 * `Token token=`. When a set holds a value that short, a base64 run whose decoded text holds a
 * form by these rules (a `Basic` credential of `user:k9Zq`) is replaced whole.
 */
export function redactWith(text: string, sets: readonly Redactor[]): string {
  const known = sets.filter((set) => set.size > 0);
  if (!known.length) return text;
  const scrubbed = redactForms(text, known);
  // A long secret's base64 is already caught by its forms; decoding every run costs about 3 µs.
  return known.some((set) => set.hasShort)
    ? scrubbed.replace(BASE64_RUN, (run) => (carriesSecret(run, known) ? REDACTED : run))
    : scrubbed;
}

/** A run of base64 or base64url characters long enough to encode a credential with something else. */
const BASE64_RUN = /[A-Za-z0-9+/_-]{8,}={0,2}/g;

/** Text a credential could be: no control characters and no bytes that are not UTF-8. */
const PLAIN_TEXT = /^[^\p{Cc}\uFFFD]*$/u;

/** Whether `run` is base64 of plain text holding a secret; binary (any other word decoded) is not. */
function carriesSecret(run: string, sets: readonly Redactor[]): boolean {
  const decoded = Buffer.from(run, "base64").toString("utf8");
  return PLAIN_TEXT.test(decoded) && redactForms(decoded, sets) !== decoded;
}

/**
 * Finds every place a form occurs (a long form by its last 6 characters, at each position they
 * end; a short one where it stands alone), then replaces them from the left, at each place the
 * longest, skipping places inside a form already replaced.
 */
function redactForms(text: string, sets: readonly Redactor[]): string {
  const found = sets.some((set) => set.hasShort)
    ? [...longForms(text, sets), ...shortForms(text, sets)]
    : longForms(text, sets);
  if (!found.length) return text;
  found.sort((a, b) => a.at - b.at || b.length - a.length);
  let scrubbed = "";
  let copied = 0;
  for (const { at, length } of found) {
    if (at < copied) continue;
    scrubbed += `${text.slice(copied, at)}${REDACTED}`;
    copied = at + length;
  }
  return scrubbed + text.slice(copied);
}

interface Place {
  at: number;
  length: number;
}

function longForms(text: string, sets: readonly Redactor[]): Place[] {
  const found: Place[] = [];
  for (let end = MIN_ANYWHERE_LENGTH; end <= text.length; end++) {
    const anchor = text.slice(end - MIN_ANYWHERE_LENGTH, end);
    for (const set of sets) {
      const forms = set.endingWith(anchor);
      if (!forms) continue;
      for (const form of forms) {
        const at = end - form.length;
        if (at >= 0 && text.startsWith(form, at)) found.push({ at, length: form.length });
      }
    }
  }
  return found;
}

function shortForms(text: string, sets: readonly Redactor[]): Place[] {
  const found: Place[] = [];
  for (let at = 0; at < text.length; at++) {
    for (let length = 1; length < MIN_ANYWHERE_LENGTH && at + length <= text.length; length++) {
      const form = text.slice(at, at + length);
      if (sets.some((set) => set.hasShortForm(form)) && standsAlone(text, at, length))
        found.push({ at, length });
    }
  }
  return found;
}

/** Whether a short form at `at` (of `length` characters) follows an auth scheme or is a whole token. */
function standsAlone(text: string, at: number, length: number): boolean {
  return (
    holdsAt(AFTER_SCHEME, text, at) ||
    (holdsAt(NO_TOKEN_BEFORE, text, at) && holdsAt(NO_TOKEN_AFTER, text, at + length))
  );
}

function holdsAt(pattern: RegExp, text: string, at: number): boolean {
  pattern.lastIndex = at;
  return pattern.test(text);
}
