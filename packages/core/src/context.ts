import { type ErrorKind, ToolError } from "./errors.js";
import { type Logger, silentLogger } from "./logger.js";
import { accessTokenVariable, Secret, secretsFromEnv, type TokenProvider, tokensFromEnv } from "./secrets.js";
import { followSignals } from "./signals.js";
import { memoryState, type StateStore } from "./state.js";
import type { AuthRequirement, Credential, ProgressUpdate, ToolContext } from "./tool.js";
import { hostFetch, type UpstreamFetch, type UpstreamLimits } from "./upstream.js";

/** A credential the host could not find: an OAuth provider's token (or its stand-in secret), or a secret. */
export type MissingCredential =
  | { kind: "secret"; name: string }
  | { kind: "token"; provider: string; alternativeSecret?: string };

/**
 * A secret as a host hands it over: its value, or its value with the settings that belong with it
 * (the region of the workspace an API key opens), which the credential carries (`Credential.settings`).
 */
export type HostSecret = string | { value: string; settings: Readonly<Record<string, string>> };

/**
 * Where tools get credentials, settings and logging. One host serves every call; a context per
 * call adds the signal and progress reporter.
 */
export interface Host {
  /** A secret's value by name (any `SecretProvider`), optionally with its settings; `undefined` when unset. */
  secrets: (name: string) => HostSecret | undefined | Promise<HostSecret | undefined>;
  tokens: TokenProvider;
  /** Non-secret configuration (`PAGER_REGION`, `MARKETING_API_URL`, …). */
  settings(name: string): string | undefined;
  logger: Logger;
  /** Advice on supplying a missing credential, in this host's terms. */
  howToSupply(missing: MissingCredential): string;
  /** Cap on a result's JSON size in bytes; larger results are cut with a marker. */
  maxResultBytes?: number;
  /**
   * The fetch upstream requests go through (a sandbox's fakes, say); default the global one. Core's
   * clients name each request's rate budget in its init (`UpstreamInit.budget`).
   */
  fetch?: UpstreamFetch;
  /**
   * The operator's limits on every upstream exchange of every tool: `timeoutMs` per attempt (body
   * included), `maxBytes` per answer, `maxRedirects` (same-origin, bodiless requests only). Unset
   * ones take core's `DEFAULT_UPSTREAM_LIMITS` (30 s, 20 MB, 3).
   */
  upstream?: Partial<UpstreamLimits>;
  /**
   * Where toolkits keep state between requests (page sessions); default one in this process's
   * memory. A host running as several replicas gives them all the same store.
   */
  state?: StateStore;
  /**
   * The host as one calling person sees it, for a host serving many people who each act as
   * themselves upstream: their credentials, their rate limits. `principal` is the host's own name
   * for the person (see `CallScope.principal`). Without it, every caller shares this host.
   */
  forPrincipal?(principal: string): Host;
  /** Receives one record per finished tool call (an audit log, say). Must not throw. */
  audit?(record: CallRecord): void;
  /**
   * Sets up what the host builds on first use (a sandbox's fakes, say); `invokeTool` awaits it
   * before any tool runs, and the host must not be used before it settles.
   */
  ready?(): Promise<void>;
}

/** What `Host.audit` hears of one tool call: never argument values, results or credentials. */
export interface CallRecord {
  /** Canonical tool name, e.g. `Pager.ListIncidents`. */
  tool: string;
  /** Who called (`CallScope.principal`), when the caller said. */
  principal?: string;
  /** `ok`, or the error kind the caller saw. */
  outcome: "ok" | ErrorKind;
  /** From the arguments' arrival to the answer, in milliseconds. */
  durationMs: number;
  /** Upstream HTTP requests the call sent, retries included. */
  upstreamRequests: number;
}

/**
 * Host advice for environment-configured credentials: the variable to set, e.g. "Set the
 * MARKETING_API_KEY environment variable." With `program` (a long-running process whose environment
 * only changes by restarting it, e.g. "the server"), it ends by saying to set it there and restart
 * it; without, it suits a library, whose caller sets the variable in its own process.
 */
export function envAdvice(missing: MissingCredential, program?: string): string {
  if (missing.kind === "secret") {
    const where = program ? ` for ${program} and restart it` : "";
    return `Set the ${missing.name} environment variable${where}.`;
  }
  const alternative = missing.alternativeSecret ? ` (or ${missing.alternativeSecret} to an API token)` : "";
  const restart = program ? ` and restart ${program}` : "";
  return `Set ${accessTokenVariable(missing.provider)} to an OAuth access token for ${missing.provider}${alternative}${restart}.`;
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

/** What the caller of one tool call gives it besides the arguments. */
export interface CallScope {
  /** Aborted when the caller cancels; the tool's upstream requests stop. */
  signal?: AbortSignal;
  /**
   * Aborts `signal`: given when the transport made `signal` for this one call. A failed call then
   * aborts it itself, stopping what it still runs, instead of following it with a signal of its
   * own (see `runScoped`); on Node 20 each signal made costs a measurable share of a call.
   */
  abort?(reason: unknown): void;
  /** Receives progress, when the caller asked for it. */
  progress?: (update: ProgressUpdate) => void;
  /**
   * Who is calling, in the host's terms (a verified identity's issuer and subject, say): the call
   * then runs on `host.forPrincipal(principal)`.
   */
  principal?: string;
}

/** The host a call runs on: the caller's own view of it when the host serves many people. */
export function hostFor(host: Host, scope: CallScope): Host {
  return scope.principal !== undefined && host.forPrincipal ? host.forPrincipal(scope.principal) : host;
}

/** The store used when a host names none, shared by every such host in this process. */
const processState = memoryState();

/**
 * Builds the per-call context a tool receives, for a tool needing `auth`, on `host` as given
 * (`invokeTool` first takes the caller's view of it, see `hostFor`). Its credential is looked
 * up once per call, so the check before the handler and the handler's own requests share one
 * lookup (a token store read, a refresh).
 */
export function createContext(host: Host, auth: AuthRequirement, scope: CallScope = {}): ToolContext {
  let credential: Promise<Credential> | undefined;
  return {
    credential: () => {
      credential ??= resolveCredential(host, auth);
      return credential;
    },
    setting: (name) => host.settings(name),
    signal: scope.signal ?? new AbortController().signal,
    progress: scope.progress ?? (() => {}),
    logger: host.logger,
    fetch: hostFetch(host),
    maxResultBytes: host.maxResultBytes,
    upstream: host.upstream,
    state: host.state ?? processState,
  };
}

/**
 * Runs `run` with a copy of `context` whose signal also aborts if `run` fails. A tool that sends
 * requests side by side (`Promise.all`) answers at the first failure; without this, the others
 * would keep running, and paging, after the tool has answered. (A tool that succeeds has awaited
 * its requests: aborting then would only wake every finished request's listeners.) Given `abort`,
 * which aborts `context.signal` (a signal made for this call alone, `CallScope.abort`), `run` gets
 * `context` itself and a failure calls `abort`.
 * @throws whatever `run` throws.
 */
export async function runScoped<R>(
  context: ToolContext,
  run: (scoped: ToolContext) => Promise<R>,
  abort?: (reason: unknown) => void,
): Promise<R> {
  if (abort) {
    try {
      return await run(context);
    } catch (error) {
      abort(ANSWERED);
      throw error;
    }
  }
  const scoped = followSignals(context.signal);
  try {
    return await run({ ...context, signal: scoped.signal });
  } catch (error) {
    scoped.abort(ANSWERED);
    throw error;
  } finally {
    scoped.release();
  }
}

// One reason for every call: a DOMException made per call (its stack captured) cost 2% of a call.
const ANSWERED = new DOMException("The tool call has answered.", "AbortError");

/**
 * The credential `auth` asks for: the OAuth token when the host has one, else the named secret.
 * @throws ToolError `unauthenticated` with the host's advice when it has neither.
 */
async function resolveCredential(host: Host, auth: AuthRequirement): Promise<Credential> {
  const { oauth, secret } = auth;
  if (oauth) {
    const token = await host.tokens(oauth.provider, oauth.scopes);
    if (token)
      return {
        kind: "token",
        provider: oauth.provider,
        value: new Secret(accessTokenVariable(oauth.provider), token),
      };
  }
  if (secret) {
    const found = await host.secrets(secret);
    const { value, settings } =
      typeof found === "string" ? { value: found, settings: undefined } : (found ?? {});
    if (value) return { kind: "secret", name: secret, value: new Secret(secret, value), settings };
  }
  const missing: MissingCredential = oauth
    ? { kind: "token", provider: oauth.provider, alternativeSecret: secret }
    : { kind: "secret", name: secret ?? "(none declared)" };
  const what = oauth ? `An access token for ${oauth.provider}` : `The secret ${secret}`;
  throw new ToolError("unauthenticated", `${what} is not configured. ${host.howToSupply(missing)}`, {
    retryable: false,
  });
}

/** Whether a tool declares a credential at all (search and call tools of a catalogue do not). */
export const needsCredential = (auth: AuthRequirement): boolean =>
  auth.oauth !== undefined || auth.secret !== undefined;
