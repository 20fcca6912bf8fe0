import {
  accessTokenVariable,
  createContext,
  envAdvice,
  envHost,
  type Host,
  hostFetch,
  type Logger,
  type MissingCredential,
  type StateStore,
  sandboxHost,
  secretsFromEnv,
  ToolError,
  type Toolkit,
  tokensFromEnv,
  type UpstreamLimits,
} from "@toolkits/core";
import { API_KEY_SECRET } from "@toolkits/marketing";
import { accountIn, type ChoosingHost, type ChosenParts } from "./credentials/choice.js";
import { type AccountChoice, chosen, NO_CHOICE } from "./credentials/labels.js";
import { storedTokens } from "./credentials/local.js";
import { isOAuthProvider } from "./credentials/providers.js";
import { TokenFile } from "./credentials/token-file.js";
import type { ServerOptions } from "./options/index.js";
import { type Pages, servePagesOnLoopback } from "./pages.js";

/** What every host of this server shares. */
export interface HostOptions {
  logger: Logger;
  maxResultBytes: number;
  /** Limits on every upstream request (time, bytes, redirects). */
  upstream?: Partial<UpstreamLimits>;
  /** Where the toolkits' pages are served, given to tools as `TOOLKITS_PUBLIC_URL`. */
  pagesUrl?: string;
  /** Where toolkits keep state between requests; the pages are given the same store. */
  state?: StateStore;
}

const PAGES_URL_SETTING = "TOOLKITS_PUBLIC_URL";

/**
 * Credentials and settings from the toolkits' variables (`ServerOptions.toolkitEnv`), the normal
 * way to run; OAuth access tokens fall back to the user's sign-in store (`toolkits-mcp login`) when
 * no `*_ACCESS_TOKEN` is set. A provider whose account `accounts` (or a connector URL, through
 * `chooseAccounts`) chooses by label is served by that sign-in alone: the variables name no account.
 */
export function environmentHost(
  options: HostOptions,
  env: ServerOptions["toolkitEnv"],
  tokenFile: string,
  accounts: AccountChoice = NO_CHOICE,
): ChoosingHost {
  const fromEnv = tokensFromEnv(env);
  const file = new TokenFile(tokenFile);
  const fromStore = storedTokens(file, options.logger);
  const fromEnvSecrets = secretsFromEnv(env);
  const parts = (choice: AccountChoice): ChosenParts => {
    const stored = fromStore(choice);
    return {
      tokens: async (provider, scopes) => {
        const labelled = isOAuthProvider(provider) && choice[provider] !== undefined;
        return (labelled ? undefined : await fromEnv(provider, scopes)) ?? stored(provider, scopes);
      },
      secrets: (name) => {
        if (name === API_KEY_SECRET && choice.marketing !== undefined) throw unlabelledKey(choice.marketing);
        return fromEnvSecrets(name);
      },
    };
  };
  return {
    ...envHost(env, {
      logger: options.logger,
      maxResultBytes: options.maxResultBytes,
      upstream: options.upstream,
      state: options.state,
      settings: withPagesUrl(
        (name) => env[name] || undefined,
        () => options.pagesUrl,
      ),
      howToSupply: signinAdvice,
      ...parts(accounts),
    }),
    chooseAccounts: (choice) => parts(chosen(accounts, choice)),
    async answeringAccount(provider, _principal, choice) {
      if (!isOAuthProvider(provider)) return undefined;
      const label = chosen(accounts, choice)[provider];
      // The environment's token answers before the default sign-in, and names no account.
      if (label === undefined && env[accessTokenVariable(provider)]) return undefined;
      return accountIn(file, provider, label);
    },
  };
}

/** The answer for a chosen marketing account: a shared server's one key names none. */
const unlabelledKey = (label: string) =>
  new ToolError(
    "unauthenticated",
    `No Customer.io account labelled “${label}” is configured: this server's ${API_KEY_SECRET} names no account. Use the URL without @${label}.`,
    { retryable: false },
  );

/** The environment advice, plus `toolkits-mcp login` for the providers it can sign in to. */
function signinAdvice(missing: MissingCredential): string {
  const canSignIn = missing.kind === "token" && isOAuthProvider(missing.provider);
  const advice = envAdvice(missing, "the server");
  return canSignIn
    ? `${advice} Or sign in once with \`toolkits-mcp login ${missing.provider}\`; the server picks the sign-in up without a restart.`
    : advice;
}

/**
 * The sandbox, set up on the first tool call rather than at start (`Host.ready`): msw and the fakes'
 * seeded accounts take longer to load than the rest of the server, and a client lists the tools
 * before it calls one.
 */
export function deferredSandboxHost(toolkits: Toolkit[], options: HostOptions): Host {
  let fakes: Host | undefined;
  let setup: Promise<void> | undefined;
  const built = (): Host => {
    if (!fakes) throw new Error("The sandbox was used before it was set up.");
    return fakes;
  };
  return {
    ready: () => {
      setup ??= fakesHost(toolkits, options).then((host) => {
        fakes = host;
      });
      return setup;
    },
    secrets: (name) => built().secrets(name),
    tokens: (provider, scopes) => built().tokens(provider, scopes),
    settings: (name) => built().settings(name),
    howToSupply: (missing) => built().howToSupply(missing),
    fetch: (input, init) => hostFetch(built())(input, init),
    logger: options.logger,
    maxResultBytes: options.maxResultBytes,
    upstream: options.upstream,
    state: options.state,
  };
}

/** Every toolkit's fake upstreams and credentials (core's sandbox host), with the pages' URL. */
async function fakesHost(toolkits: Toolkit[], options: HostOptions): Promise<Host> {
  const host = await sandboxHost(toolkits, {
    logger: options.logger,
    maxResultBytes: options.maxResultBytes,
    upstream: options.upstream,
    state: options.state,
  });
  return { ...host, settings: withPagesUrl(host.settings, () => options.pagesUrl) };
}

/**
 * `host` with the toolkits' pages served on a loopback port (stdio) from the first tool call on
 * (`Host.ready`, which tools wait for), their URL given to tools as `TOOLKITS_PUBLIC_URL` unless
 * `host` sets it: a start that only lists the tools opens no port and loads no HTTP server. A
 * listen that fails fails that call, and the next call tries again.
 */
export function withPagesOnLoopback(host: Host, pages: Pages): Host {
  let pagesUrl: string | undefined;
  let listening: Promise<void> | undefined;
  return {
    ...host,
    ready: async () => {
      listening ??= servePagesOnLoopback(pages).then(
        (url) => {
          pagesUrl = url;
        },
        (error: unknown) => {
          listening = undefined;
          throw error;
        },
      );
      await listening;
      await host.ready?.();
    },
    settings: withPagesUrl(host.settings, () => pagesUrl),
  };
}

/** `settings` with `pagesUrl()` as `TOOLKITS_PUBLIC_URL` where they set none. */
function withPagesUrl(
  settings: (name: string) => string | undefined,
  pagesUrl: () => string | undefined,
): (name: string) => string | undefined {
  return (name) => (name === PAGES_URL_SETTING ? (settings(name) ?? pagesUrl()) : settings(name));
}

/**
 * Warns once per toolkit whose credentials are missing. The toolkit still starts: its tools answer
 * `unauthenticated` with the same advice.
 */
export async function warnMissingCredentials(toolkits: Toolkit[], host: Host): Promise<void> {
  for (const kit of toolkits) {
    const first = kit.tools[0];
    if (!first) continue;
    try {
      await createContext(host, first.auth).credential();
    } catch (error) {
      host.logger.warn(`${kit.title} tools are not configured and will answer unauthenticated.`, {
        toolkit: kit.id,
        reason: (error as Error).message,
        setup: kit.setup,
      });
    }
  }
}
