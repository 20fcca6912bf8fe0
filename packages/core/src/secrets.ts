import { inspect } from "node:util";

/**
 * Every secret value ever wrapped in this process. `redact()` scrubs them from any text, so an
 * upstream that echoes a token back in an error body cannot leak it through a message or a log.
 */
const knownValues = new Set<string>();
/** Values shorter than this are not scrubbed: they would corrupt ordinary text. */
const MIN_REDACTABLE_LENGTH = 6;
const REDACTED = "[redacted]";

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
    if (value.length >= MIN_REDACTABLE_LENGTH) knownValues.add(value);
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

/** Replaces every known secret value in `text` with `[redacted]`. */
export function redact(text: string): string {
  let out = text;
  for (const value of knownValues) {
    if (out.includes(value)) out = out.replaceAll(value, REDACTED);
  }
  return out;
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
  return (name) => values[name] || undefined;
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
