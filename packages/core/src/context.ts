import { ToolError } from "./errors.js";
import { type Logger, silentLogger } from "./logger.js";
import {
  accessTokenVariable,
  Secret,
  type SecretProvider,
  secretsFromEnv,
  type TokenProvider,
  tokensFromEnv,
} from "./secrets.js";
import type { AuthRequirement, ProgressUpdate, ToolContext } from "./tool.js";

/** A credential the host could not find. */
export type MissingCredential = { kind: "secret"; name: string } | { kind: "token"; provider: string };

/**
 * Where tools get credentials, settings and logging. One host serves every call; a context per
 * call adds the signal and progress reporter.
 */
export interface Host {
  secrets: SecretProvider;
  tokens: TokenProvider;
  /** Non-secret configuration (`PAGER_REGION`, `MARKETING_API_URL`, …). */
  settings(name: string): string | undefined;
  logger: Logger;
  /** Advice on supplying a missing credential, in this host's terms. */
  howToSupply(missing: MissingCredential): string;
  /** Cap on a result's JSON size in bytes; larger results are cut with a marker. */
  maxResultBytes?: number;
}

/** Host advice for environment-configured credentials. */
export function envAdvice(missing: MissingCredential): string {
  return missing.kind === "secret"
    ? `Set the ${missing.name} environment variable for the server and restart it.`
    : `Set ${accessTokenVariable(missing.provider)} to an OAuth access token for ${missing.provider} and restart the server.`;
}

/** A host reading everything from environment variables (the default for servers and scripts). */
export function envHost(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Host> = {}): Host {
  return {
    secrets: secretsFromEnv(env),
    tokens: tokensFromEnv(env),
    settings: (name) => env[name] || undefined,
    logger: silentLogger,
    howToSupply: envAdvice,
    ...overrides,
  };
}

export interface CallScope {
  signal?: AbortSignal;
  progress?: (update: ProgressUpdate) => void;
}

/**
 * Builds the per-call context a handler receives. Each credential is looked up once per call, so
 * the check before the handler and the handler's own request share one lookup (a token store read,
 * a refresh).
 */
export function createContext(host: Host, scope: CallScope = {}): ToolContext {
  const looked = new Map<string, Promise<string | undefined>>();
  const once = (key: string, load: () => string | undefined | Promise<string | undefined>) => {
    let value = looked.get(key);
    if (!value) {
      value = Promise.resolve().then(load);
      looked.set(key, value);
    }
    return value;
  };
  const token = (provider: string, scopes: readonly string[]) =>
    once(`token ${provider} ${scopes.join(" ")}`, () => host.tokens(provider, scopes));
  const secret = (name: string) => once(`secret ${name}`, () => host.secrets(name));
  const missing = (what: MissingCredential, label: string) =>
    new ToolError("unauthenticated", `${label} is not configured. ${host.howToSupply(what)}`, {
      retryable: false,
    });
  return {
    async accessToken(provider, scopes) {
      const value = await token(provider, scopes);
      if (!value) throw missing({ kind: "token", provider }, `An access token for ${provider}`);
      return new Secret(accessTokenVariable(provider), value);
    },
    async optionalAccessToken(provider, scopes) {
      const value = await token(provider, scopes);
      return value ? new Secret(accessTokenVariable(provider), value) : undefined;
    },
    async secret(name) {
      const value = await secret(name);
      if (!value) throw missing({ kind: "secret", name }, `The secret ${name}`);
      return new Secret(name, value);
    },
    async optionalSecret(name) {
      const value = await secret(name);
      return value ? new Secret(name, value) : undefined;
    },
    setting: (name) => host.settings(name),
    signal: scope.signal ?? new AbortController().signal,
    progress: scope.progress ?? (() => {}),
    logger: host.logger,
    maxResultBytes: host.maxResultBytes,
  };
}

/**
 * Fails with `unauthenticated` before any upstream call when a credential the tool declares is
 * missing from `context`. An OAuth need is met by the token or by its alternative secret.
 */
export async function assertCredentials(auth: AuthRequirement, context: ToolContext): Promise<void> {
  for (const name of auth.secrets ?? []) await context.secret(name);
  const oauth = auth.oauth;
  if (!oauth) return;
  if (await context.optionalAccessToken(oauth.provider, oauth.scopes)) return;
  if (oauth.alternativeSecret && (await context.optionalSecret(oauth.alternativeSecret))) return;
  await context.accessToken(oauth.provider, oauth.scopes);
}
