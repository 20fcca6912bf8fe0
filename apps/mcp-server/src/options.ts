import {
  DEFAULT_UPSTREAM_LIMITS,
  type LogLevel,
  TOOL_NAME_FORMS,
  type ToolNameForm,
  type UpstreamLimits,
} from "@toolkits/core";
import { CATALOG_MODES, type CatalogMode } from "@toolkits/core/mcp";
import { Command, InvalidArgumentError, Option } from "commander";
import { OAUTH_PROVIDER_IDS, type OAuthClients, README_SECTION } from "./credentials/providers.js";
import { tokenFilePath } from "./credentials/token-file.js";
import type { SignInSettings } from "./signin/index.js";
import { DEFAULT_MAX_MESSAGE_BYTES } from "./stdio/index.js";
import { DEFAULT_RATE_LIMIT_SPEC, parseRateLimits } from "./team/limits.js";
import { DEFAULT_STORE_HINT } from "./team/store/location.js";
import { TOOLKIT_IDS } from "./toolkits.js";

/** Everything the server can be told, from flags or their `MCP_*` environment equivalents. */
export interface ServerOptions {
  transport: "stdio" | "http";
  /** Interface to bind for HTTP; loopback by default. */
  host: string;
  port: number;
  /** Toolkit ids to load: `pager`, `sheets`, `marketing`. */
  toolkits: string[];
  /** Tool names or globs (`Pager.*`), either name form; empty means every tool of the loaded toolkits. */
  tools: string[];
  excludeTools: string[];
  /** Toolsets (areas) to load, e.g. `segments`; empty means all. */
  toolsets: string[];
  /** Register only tools whose readOnly hint is true. */
  readOnly: boolean;
  /** How tool names are served: `underscore` (`Pager_WhoAmI`, default) or `dotted` (`Pager.WhoAmI`). */
  toolNames: ToolNameForm;
  /** `full` lists every tool; `search` lists `search_tools` and `call_tool` only. */
  catalog: CatalogMode;
  /** Answer from each toolkit's built-in fake upstream; no credentials needed. */
  sandbox: boolean;
  /** Cap on one tool result's JSON size, in bytes. */
  maxResultBytes: number;
  logLevel: LogLevel;
  /** Extra host names accepted in the HTTP `Host` header (loopback names always are). */
  allowedHosts: string[];
  /** Origins accepted in the HTTP `Origin` header. */
  allowedOrigins: string[];
  /** Largest HTTP request body, in bytes. */
  maxBodyBytes: number;
  /** Longest an HTTP request may run, in milliseconds. */
  requestTimeoutMs: number;
  /**
   * Longest a new HTTP connection may stay silent before its first byte, and a request may then
   * take to send its complete headers, in milliseconds.
   */
  headerTimeoutMs: number;
  /**
   * Time for an HTTP request's body, in milliseconds: the whole request must arrive within
   * `headerTimeoutMs + bodyTimeoutMs` of its first byte.
   */
  bodyTimeoutMs: number;
  /** Longest an HTTP connection may sit idle between requests, in milliseconds. */
  keepAliveTimeoutMs: number;
  /** Most HTTP connections open at once; further ones are closed as soon as they are accepted. */
  maxConnections: number;
  /** Longest calls in flight may run after SIGTERM, SIGINT or (stdio) stdin closing before they are aborted, in milliseconds. */
  shutdownGraceMs: number;
  /** Largest stdio message (one JSON-RPC line), in bytes; longer ones get a -32600 error. */
  maxMessageBytes: number;
  /** Limits on every upstream request: time per attempt (answer included, ms), bytes per answer, redirects. */
  upstream: UpstreamLimits;
  /** Externally visible base URL of the HTTP server, when behind a proxy. */
  publicUrl?: string;
  /**
   * `shared`: every caller uses the server's credentials (the environment, `login`); `per-user`
   * (HTTP only): every person connects and uses their own upstream accounts.
   */
  credentials: "shared" | "per-user";
  /** Where per-user state lives: `redis://…`, `file:///…`; undefined for the default file. */
  storeUrl?: string;
  /** Per-person upstream budgets, `pager=960/60s,…` (see team/limits.ts). */
  rateLimits: string;
  /** Longest a call over budget waits before answering rate_limited, in milliseconds. */
  rateLimitWaitMs: number;
  /** The OAuth clients at the upstream providers (`<PREFIX>_OAUTH_*`, `PAGER_REGION`). */
  oauthClients: OAuthClients;
  /** The connect pages' client at `MCP_OAUTH_ISSUER` (`MCP_CONNECT_CLIENT_ID`, `_SECRET`). */
  connectClient: { id?: string; secret?: string };
}

/** What the commands do; `cli.ts` supplies them, loading each one's code only when it runs. */
export interface Commands {
  serve(options: ServerOptions): Promise<void>;
  /** Resolve to the process exit code. */
  login(
    provider: string,
    options: { browser: boolean; port: number; timeoutSeconds?: number },
    settings: SignInSettings,
  ): Promise<number>;
  logout(provider: string, settings: SignInSettings): Promise<number>;
  authStatus(settings: SignInSettings): Promise<number>;
}

/** The OAuth providers `login` and `logout` know. */
const SIGNIN_PROVIDERS: string[] = [...OAUTH_PROVIDER_IDS];

const ENVIRONMENT = `
Environment:
  Upstream credentials (a toolkit without them still starts; its tools answer
  unauthenticated, saying what to set):
    PAGER_ACCESS_TOKEN      PagerDuty OAuth access token (or sign in: toolkits-mcp login pager)
    PAGER_API_TOKEN         a classic PagerDuty API token, used when there is no OAuth token
    PAGER_REGION            us (default) or eu; PAGER_API_URL overrides the API URL
    GOOGLE_ACCESS_TOKEN     Google OAuth access token (or sign in: toolkits-mcp login google)
    GOOGLE_API_ROOT_URL     one root URL for every Google API (tests, proxies)
    GOOGLE_OAUTH_CLIENT_ID, GOOGLE_PICKER_API_KEY, GOOGLE_PICKER_APP_ID
                            the file picker's OAuth client, browser key and project number
    MARKETING_API_KEY       Customer.io App API key
    MARKETING_REGION        us (default) or eu; MARKETING_API_URL overrides the API URL
  HTTP authentication (mandatory on any interface but loopback):
    MCP_HTTP_BEARER_TOKENS  comma-separated static bearer tokens, each at least 32
                            characters (make one with: openssl rand -hex 32)
    MCP_OAUTH_ISSUER, MCP_OAUTH_AUDIENCE, MCP_OAUTH_JWKS_URL
                            accept OAuth access tokens (JWTs) of this issuer and audience
  Per-user credentials (--credentials per-user; see "Deploying for a team" in the README):
    MCP_HTTP_BEARER_TOKENS  named tokens, one per person: alice:<token>,bob:<token>
                            (or the OAuth variables above: each JWT's subject is a person)
    MCP_STORE_KEY           32 random bytes, base64, sealing every stored credential
                            (make one with: openssl rand -base64 32)
    MCP_STORE_KEY_PREVIOUS  the key before a rotation; records it sealed still open
    MCP_CONNECT_CLIENT_ID, MCP_CONNECT_CLIENT_SECRET
                            the OpenID Connect client of the /connect pages' sign-in
                            (redirect URI <public URL>/connect/signed-in)
  Sign-in (login, logout): PAGER_OAUTH_CLIENT_ID, PAGER_OAUTH_CLIENT_SECRET,
    GOOGLE_OAUTH_CLIENT_ID, GOOGLE_OAUTH_CLIENT_SECRET; PAGER_OAUTH_ISSUER and
    GOOGLE_OAUTH_ISSUER discover the endpoints from another issuer; XDG_CONFIG_HOME
    moves the token store; BROWSER=none only prints sign-in URLs.`;

/**
 * The `toolkits-mcp` command line: serving (the default command) with every option also read from
 * its `MCP_*` variable, and the `login`, `logout`, `auth status` and `help` commands.
 */
export function program(commands: Commands, version: string): Command {
  const root = new Command("toolkits-mcp")
    .description("Serves the pager, sheets and marketing tools over MCP (stdio or Streamable HTTP).")
    .version(version, "-v, --version", "print the version")
    .helpOption("-h, --help", "print this help")
    .addHelpText("after", ENVIRONMENT)
    .showHelpAfterError()
    // Errors come back to cli.ts, which exits with 2 for a bad command line.
    .exitOverride()
    // `login --port` is the login's own option, not the server's.
    .enablePositionalOptions();
  for (const option of serveOptions()) root.addOption(option);
  root.action(async (_values, command: Command) => commands.serve(serverOptions(command)));
  signinCommands(root, commands);
  root.helpCommand("help [command]", "print the help of a command");
  return root;
}

const list = (value: string) =>
  value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);

function oneOf<const T extends readonly string[]>(allowed: T): (value: string) => T[number] {
  return (value) => {
    if (allowed.includes(value)) return value as T[number];
    throw new InvalidArgumentError(`It must be one of ${allowed.join(", ")} (got "${value}").`);
  };
}

function integer(min: number, max: number): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (Number.isInteger(parsed) && parsed >= min && parsed <= max) return parsed;
    throw new InvalidArgumentError(`It must be an integer from ${min} to ${max} (got "${value}").`);
  };
}

/** An option read from the command line, else from `env`, else its default. */
function option(
  flags: string,
  help: string,
  env: string,
  parse?: (value: string) => unknown,
  fallback?: unknown,
): Option {
  const made = new Option(flags, help).env(env);
  if (parse) made.argParser(parse);
  return fallback === undefined ? made : made.default(fallback);
}

function serveOptions(): Option[] {
  return [
    option(
      "--transport <transport>",
      "stdio or http",
      "MCP_TRANSPORT",
      oneOf(["stdio", "http"] as const),
      "stdio",
    ),
    option("--host <host>", "HTTP interface to bind", "MCP_HOST", undefined, "127.0.0.1"),
    option("--port <port>", "HTTP port (0 picks a free one)", "MCP_PORT", integer(0, 65_535), 3000),
    option(
      "--toolkits <ids>",
      `comma-separated toolkits: ${TOOLKIT_IDS.join(", ")}`,
      "MCP_TOOLKITS",
      (value: string) => list(value).map(oneOf(TOOLKIT_IDS)),
    ),
    option(
      "--tools <names>",
      "comma-separated tool names or globs, either form: 'Pager.*', Pager_WhoAmI",
      "MCP_TOOLS",
      list,
    ),
    option(
      "--exclude-tools <names>",
      "tool names or globs to leave out (wins over --tools)",
      "MCP_EXCLUDE_TOOLS",
      list,
    ),
    option("--toolsets <names>", "comma-separated areas, e.g. segments,broadcasts", "MCP_TOOLSETS", list),
    new Option("--read-only", "register only read-only tools").env("MCP_READ_ONLY"),
    option(
      "--tool-names <form>",
      "underscore (Pager_WhoAmI, accepted by every client) or dotted (Pager.WhoAmI)",
      "MCP_TOOL_NAMES",
      oneOf(TOOL_NAME_FORMS),
      "underscore",
    ),
    option(
      "--catalog <mode>",
      "full (list every tool) or search (list search_tools and call_tool only)",
      "MCP_CATALOG",
      oneOf(CATALOG_MODES),
      "full",
    ),
    new Option("--sandbox", "answer from built-in fake upstreams (no credentials)").env("MCP_SANDBOX"),
    option(
      "--max-result-bytes <bytes>",
      "cap on one result's JSON size",
      "MCP_MAX_RESULT_BYTES",
      integer(1_000, 100_000_000),
      100_000,
    ),
    option(
      "--log-level <level>",
      "stderr log level",
      "MCP_LOG_LEVEL",
      oneOf(["debug", "info", "warn", "error"] as const),
      "warn",
    ),
    option("--allowed-hosts <hosts>", "extra Host names accepted over HTTP", "MCP_ALLOWED_HOSTS", list),
    option("--allowed-origins <origins>", "browser Origins accepted over HTTP", "MCP_ALLOWED_ORIGINS", list),
    option(
      "--max-body-bytes <bytes>",
      "largest HTTP request body",
      "MCP_MAX_BODY_BYTES",
      integer(1_000, 100_000_000),
      1_000_000,
    ),
    option("--public-url <url>", "externally visible base URL (behind a proxy)", "MCP_PUBLIC_URL"),
    option(
      "--request-timeout-ms <ms>",
      "HTTP request time limit, in milliseconds",
      "MCP_REQUEST_TIMEOUT_MS",
      integer(100, 3_600_000),
      120_000,
    ),
    option(
      "--header-timeout-ms <ms>",
      "longest a new HTTP connection may stay silent, and a request may take from its first byte to its last header, in milliseconds",
      "MCP_HEADER_TIMEOUT_MS",
      integer(100, 600_000),
      10_000,
    ),
    option(
      "--body-timeout-ms <ms>",
      "time for an HTTP request body: the whole request must arrive within the header and body timeouts of its first byte, in milliseconds",
      "MCP_BODY_TIMEOUT_MS",
      integer(100, 3_600_000),
      30_000,
    ),
    option(
      "--keep-alive-timeout-ms <ms>",
      "longest an HTTP connection may sit idle between requests, in milliseconds",
      "MCP_KEEP_ALIVE_TIMEOUT_MS",
      integer(100, 600_000),
      5_000,
    ),
    option(
      "--max-connections <count>",
      "most HTTP connections open at once (keep it under the file-descriptor limit, ulimit -n)",
      "MCP_MAX_CONNECTIONS",
      integer(1, 1_000_000),
      512,
    ),
    option(
      "--shutdown-grace-ms <ms>",
      "how long calls in flight may run after SIGTERM, SIGINT or (stdio) stdin closing before they are aborted, in milliseconds",
      "MCP_SHUTDOWN_GRACE_MS",
      integer(0, 3_600_000),
      15_000,
    ),
    option(
      "--max-message-bytes <bytes>",
      "largest stdio message (one JSON-RPC line); a longer one gets a -32600 error",
      "MCP_MAX_MESSAGE_BYTES",
      integer(1_000, 1_000_000_000),
      DEFAULT_MAX_MESSAGE_BYTES,
    ),
    option(
      "--credentials <mode>",
      "shared (everyone uses the server's upstream credentials) or per-user (HTTP: each person connects their own accounts at /connect)",
      "MCP_CREDENTIALS",
      oneOf(["shared", "per-user"] as const),
      "shared",
    ),
    option(
      "--store <url>",
      `per-user state: redis://host:6379 (any number of replicas) or file:///path.json (one process; default ${DEFAULT_STORE_HINT})`,
      "MCP_STORE_URL",
    ),
    option(
      "--rate-limits <budgets>",
      "per-person upstream budgets, per-user mode",
      "MCP_RATE_LIMITS",
      rateLimits,
      DEFAULT_RATE_LIMIT_SPEC,
    ),
    option(
      "--rate-limit-wait-ms <ms>",
      "longest a call over its budget waits before answering rate_limited, in milliseconds",
      "MCP_RATE_LIMIT_WAIT_MS",
      integer(0, 60_000),
      3_000,
    ),
    option(
      "--upstream-timeout-ms <ms>",
      "time limit of one upstream request, its answer included, in milliseconds",
      "MCP_UPSTREAM_TIMEOUT_MS",
      integer(100, 3_600_000),
      DEFAULT_UPSTREAM_LIMITS.timeoutMs,
    ),
    option(
      "--upstream-max-bytes <bytes>",
      "largest upstream answer read; a larger one is an error",
      "MCP_UPSTREAM_MAX_BYTES",
      integer(1_000, 1_000_000_000),
      DEFAULT_UPSTREAM_LIMITS.maxBytes,
    ),
    option(
      "--upstream-max-redirects <count>",
      "same-origin redirects followed for a request without a body (0: none); others are refused",
      "MCP_UPSTREAM_MAX_REDIRECTS",
      integer(0, 10),
      DEFAULT_UPSTREAM_LIMITS.maxRedirects,
    ),
  ];
}

/** The parsed serve options; a boolean variable counts only when it reads 1, true or yes. */
function serverOptions(command: Command): ServerOptions {
  const values = command.opts();
  const on = (key: string, env: string) =>
    command.getOptionValueSource(key) === "env"
      ? ["1", "true", "yes"].includes((process.env[env] ?? "").toLowerCase())
      : values[key] === true;
  return {
    transport: values.transport,
    host: values.host,
    port: values.port,
    toolkits: values.toolkits?.length ? values.toolkits : [...TOOLKIT_IDS],
    tools: values.tools ?? [],
    excludeTools: values.excludeTools ?? [],
    toolsets: values.toolsets ?? [],
    readOnly: on("readOnly", "MCP_READ_ONLY"),
    toolNames: values.toolNames,
    catalog: values.catalog,
    sandbox: on("sandbox", "MCP_SANDBOX"),
    maxResultBytes: values.maxResultBytes,
    logLevel: values.logLevel,
    allowedHosts: values.allowedHosts ?? [],
    allowedOrigins: values.allowedOrigins ?? [],
    maxBodyBytes: values.maxBodyBytes,
    requestTimeoutMs: values.requestTimeoutMs,
    headerTimeoutMs: values.headerTimeoutMs,
    bodyTimeoutMs: values.bodyTimeoutMs,
    keepAliveTimeoutMs: values.keepAliveTimeoutMs,
    maxConnections: values.maxConnections,
    shutdownGraceMs: values.shutdownGraceMs,
    maxMessageBytes: values.maxMessageBytes,
    upstream: {
      timeoutMs: values.upstreamTimeoutMs,
      maxBytes: values.upstreamMaxBytes,
      maxRedirects: values.upstreamMaxRedirects,
    },
    publicUrl: values.publicUrl,
    credentials: values.credentials,
    storeUrl: values.store,
    rateLimits: values.rateLimits,
    rateLimitWaitMs: values.rateLimitWaitMs,
    oauthClients: oauthClients(),
    connectClient: {
      id: process.env.MCP_CONNECT_CLIENT_ID || undefined,
      secret: process.env.MCP_CONNECT_CLIENT_SECRET || undefined,
    },
  };
}

/** The OAuth clients from `<PREFIX>_OAUTH_CLIENT_ID`, `_CLIENT_SECRET`, `_ISSUER` and `PAGER_REGION`. */
function oauthClients(): OAuthClients {
  const client = (prefix: string) => ({
    clientId: process.env[`${prefix}_OAUTH_CLIENT_ID`] || undefined,
    clientSecret: process.env[`${prefix}_OAUTH_CLIENT_SECRET`] || undefined,
    issuer: process.env[`${prefix}_OAUTH_ISSUER`] || undefined,
  });
  return {
    pager: { ...client("PAGER"), region: process.env.PAGER_REGION || undefined },
    google: client("GOOGLE"),
  };
}

const signInSettings = (): SignInSettings => ({
  tokenFile: tokenFilePath(process.env),
  oauthClients: oauthClients(),
  toolkitEnv: { ...process.env },
});

/** Checks a budget list at parse time, so a typo stops the start with exit code 2. */
function rateLimits(value: string): string {
  try {
    parseRateLimits(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
  return value;
}

function signinCommands(root: Command, commands: Commands): void {
  const provider = oneOf(SIGNIN_PROVIDERS);
  const exit = (code: number) => {
    process.exitCode = code;
  };
  root
    .command("login")
    .description(
      "sign in to an OAuth provider the tools act for (authorization code with PKCE through a loopback redirect); the server uses and refreshes the tokens",
    )
    .argument("<provider>", SIGNIN_PROVIDERS.join(" or "), provider)
    .option("--no-browser", "only print the sign-in URL (also BROWSER=none)")
    .option("--port <port>", "fixed loopback redirect port (default: a free one)", integer(0, 65_535), 0)
    .option("--timeout <seconds>", "how long to wait for the sign-in (default 300)", integer(1, 3_600))
    .addHelpText(
      "after",
      `\nTokens are kept in ${tokenFilePath(process.env)} (mode 0600) and refreshed by the server.\nSetting up the OAuth apps: ${README_SECTION}.`,
    )
    .action(async (id: string, values) =>
      exit(
        await commands.login(
          id,
          {
            browser: values.browser && process.env.BROWSER !== "none",
            port: values.port,
            timeoutSeconds: values.timeout,
          },
          signInSettings(),
        ),
      ),
    );
  root
    .command("logout")
    .description("forget a sign-in and revoke it at the provider")
    .argument("<provider>", SIGNIN_PROVIDERS.join(" or "), provider)
    .action(async (id: string) => exit(await commands.logout(id, signInSettings())));
  root
    .command("auth")
    .description("sign-in state: auth status")
    .command("status")
    .description("connected providers, scopes, expiry and whether a refresh token is held; never a token")
    .action(async () => exit(await commands.authStatus(signInSettings())));
}
