import { AsyncLocalStorage } from "node:async_hooks";
import { inspect } from "node:util";
import { Redactor, redactWith } from "./redactor.js";

/**
 * Values wrapped outside any secret scope: the server's own credentials (its configuration, its
 * own sign-ins). A long-running server wraps every token it refreshes; past 4,096 values the
 * oldest (long expired, in practice) are forgotten, so memory and the cost of `redact()` stay bounded.
 */
const processWide = new Redactor(4_096);
const PROCESS_ONLY: readonly Redactor[] = [processWide];
/** A scope is one call or one page request, wrapping a few values; this bounds a runaway one. */
const SCOPE_CAPACITY = 256;

/** A secret scope: its own values, and every set `redact()` consults inside it (its own last). */
interface Scope {
  own: Redactor;
  sets: readonly Redactor[];
}
const scopes = new AsyncLocalStorage<Scope>();
const scopedObservers = new Set<(value: string) => void>();

/** Registers a value for `redact()`: in the innermost secret scope, else process-wide. */
function register(value: string): void {
  const scope = scopes.getStore();
  if (!scope) {
    processWide.add(value);
    return;
  }
  scope.own.add(value);
  for (const observer of scopedObservers) observer(value);
}

/**
 * Runs `run` in a secret scope of its own, for work done as one person (a tool call acting as the
 * caller, a page request): a `Secret` wrapped inside it, in `run` or anything it starts, registers
 * its value there only, so `redact()` scrubs it from that work's output (results, errors, log
 * lines) and nowhere else: one person's credentials never rewrite what others see, nor anything
 * written after the work is done. Inside, `redact()` also scrubs every value registered
 * process-wide and in each enclosing scope. Returns what `run` returns.
 */
export function withSecretScope<R>(run: () => R): R {
  const sets = scopes.getStore()?.sets ?? PROCESS_ONLY;
  const own = new Redactor(SCOPE_CAPACITY);
  return scopes.run({ own, sets: [...sets, own] }, run);
}

/**
 * Test hook: calls `observer` with every value a `Secret` registers in a secret scope from now on
 * (those registered process-wide are what `redact()` scrubs everywhere), until the returned
 * function is called; so a leak scan can look for them in any output. Must not throw.
 */
export function observeScopedSecrets(observer: (value: string) => void): () => void {
  scopedObservers.add(observer);
  return () => scopedObservers.delete(observer);
}

/** How a `Secret` is wrapped. */
export interface SecretOptions {
  /**
   * Whether `redact()` learns the value (default true). False for a value not yet known to be a
   * credential, such as a key pasted in a form before its upstream accepted it: anyone can paste
   * anything, and what redaction rewrites must never be theirs to choose.
   */
  register?: boolean;
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
   * @param value the credential itself; registered for `redact()` in the current secret scope
   *   (see `withSecretScope`), else process-wide, unless `options.register` is false.
   */
  constructor(
    readonly name: string,
    value: string,
    options: SecretOptions = {},
  ) {
    this.#value = value;
    if (options.register !== false) register(value);
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
 * URL-encoded, base64), with `[redacted]`. Known are the values registered process-wide and, inside
 * a secret scope (`withSecretScope`), those of that scope and the scopes around it. A form of 6 or
 * more characters is replaced wherever it occurs. A shorter one (a secret of under 6 characters) is
 * replaced where it stands as a whole token, not touching a letter, digit, `_` or `-`, and always
 * right after `Bearer `, `Basic ` or `Token token=`; so a 4-character key is scrubbed from "key
 * k9Zq is invalid" but an unrelated word containing it is left alone. A base64 run whose decoded
 * text holds a secret by these rules (a `Basic` credential of `user:k9Zq`) is replaced whole.
 * Costs one lookup per character of `text` for each set consulted (process-wide, then one per
 * enclosing scope), however many values each holds.
 */
export function redact(text: string): string {
  return redactWith(text, knownSets());
}

/** The sets `redact()` consults here: process-wide, and those of the secret scopes around. */
const knownSets = (): readonly Redactor[] => scopes.getStore()?.sets ?? PROCESS_ONLY;

/** A JSON string: a quote, then characters other than quotes and backslashes, or escapes. */
const JSON_STRING = /"(?:[^"\\]|\\.)*"/g;

/**
 * `json` (valid JSON text, such as one log line) with every known secret redacted as `redact()`
 * does, inside its strings only (keys and values, compared unescaped): its punctuation, numbers
 * and layout are never rewritten, so it stays valid JSON whatever values are registered. A secret
 * outside any string (a bare number) is left as it is.
 */
export function redactJson(json: string): string {
  const sets = knownSets();
  if (!sets.some((set) => set.size > 0)) return json;
  return json.replace(JSON_STRING, (literal) => {
    const text = JSON.parse(literal) as string;
    const scrubbed = redactWith(text, sets);
    return scrubbed === text ? literal : JSON.stringify(scrubbed);
  });
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
