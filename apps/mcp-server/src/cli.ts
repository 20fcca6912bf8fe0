#!/usr/bin/env node
import { type Host, hostFetch, type Logger, memoryState } from "@toolkits/core";
import { sharedConnections } from "./front/status.js";
import { deferredSandboxHost, environmentHost, warnMissingCredentials, withPagesOnLoopback } from "./host.js";
import { stderrLogger } from "./logger.js";
import { HELP_POINTER, serverOptionsFromEnvironment } from "./options/environment.js";
import type { ServerOptions } from "./options/index.js";
import { InvalidSetting } from "./options/setting.js";
import { readEnvironment } from "./options/table.js";
import { toolkitPages } from "./pages.js";
import { servedRegistries } from "./served.js";
import { VERSION } from "./server.js";
import { serveStdio } from "./stdio/index.js";
import { startTelemetry, telemetry } from "./telemetry/index.js";
import { selectTools } from "./toolkits.js";

/** Help and version are answers; any other command-line error exits with 2. */
const ANSWERS = new Set(["commander.helpDisplayed", "commander.help", "commander.version"]);

async function main(): Promise<void> {
  // A start without arguments, the way MCP clients launch the server, reads the environment alone:
  // the command line's library and its help load only when there are arguments to parse.
  if (process.argv.length <= 2) return serveFromEnvironment();
  const [{ program }, { CommanderError }] = await Promise.all([
    import("./options/index.js"),
    import("commander"),
  ]);
  // Sign-in code loads only for the sign-in commands.
  const signin = () => import("./signin/index.js");
  const cli = program(
    {
      serve,
      login: async (provider, options, settings) =>
        (await signin()).loginCommand(provider, options, settings),
      logout: async (provider, options, settings) =>
        (await signin()).logoutCommand(provider, options, settings, stderrLogger("info")),
      authStatus: async (settings) => (await signin()).authStatusCommand(settings),
      // The store's code loads only for `admin`.
      admin: async (request, settings) => (await import("./admin/index.js")).adminCommand(request, settings),
    },
    VERSION,
  );
  try {
    await cli.parseAsync(process.argv);
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    process.exitCode = ANSWERS.has(error.code) ? 0 : 2;
  }
}

/** Serves with the settings of the environment alone; a malformed variable exits with 2, saying which. */
async function serveFromEnvironment(): Promise<void> {
  let options: ServerOptions;
  try {
    options = serverOptionsFromEnvironment(readEnvironment());
  } catch (error) {
    if (!(error instanceof InvalidSetting)) throw error;
    process.stderr.write(`${error.message}\n${HELP_POINTER}\n`);
    process.exitCode = 2;
    return;
  }
  await serve(options);
}

/**
 * Starts the server. Over HTTP the server listens first, so the tools are built knowing where their
 * pages are; under stdio the pages listen on a loopback port from the first tool call on.
 */
async function serve(options: ServerOptions): Promise<void> {
  const logger = stderrLogger(options.logLevel);
  // First: the store and the host it makes next record into it.
  await startTelemetry(
    {
      env: options.toolkitEnv,
      metricsPort: options.metricsPort,
      metricsHost: options.metricsHost,
      version: VERSION,
    },
    logger,
  );
  const { toolkits, tools } = await selectTools(options);
  const team = options.credentials === "per-user" ? await openTeam(options, logger) : undefined;
  // One store for the tools and the pages, so a page serves the session a tool opened.
  const state = team?.state ?? memoryState();
  const hostFor = async (pagesUrl: string | undefined) => {
    const hostOptions = {
      logger,
      maxResultBytes: options.maxResultBytes,
      upstream: options.upstream,
      pagesUrl,
      state,
    };
    if (options.sandbox) return recorded(deferredSandboxHost(toolkits, hostOptions));
    const host = recorded(
      environmentHost(hostOptions, options.toolkitEnv, options.tokenFile, options.accounts),
    );
    if (!team) await warnMissingCredentials(toolkits, host);
    return host;
  };
  // Each view's registry is built once: every request, over either transport, reads one.
  const registryFor = (host: Host, publicUrl?: string) =>
    servedRegistries({ toolkits, tools }, options, host, publicUrl);
  if (options.transport === "stdio") {
    const pages = toolkitPages(toolkits, state);
    const host = await hostFor(undefined);
    return serveStdio(registryFor(pages ? withPagesOnLoopback(host, pages) : host), logger, {
      maxMessageBytes: options.maxMessageBytes,
      shutdownGraceMs: options.shutdownGraceMs,
      apps: options.apps === "on",
    });
  }
  // Loaded only for HTTP: the auth stack stays out of a stdio start-up.
  const { listenHttp } = await import("./http/index.js");
  const listening = await listenHttp(options, logger, team);
  const host = await hostFor(listening.publicUrl);
  const serving = team?.serve(host, listening.publicUrl, listening.auth, tools);
  // Per user, the pages serve each signed-in person their own sessions.
  const pages = toolkitPages(toolkits, state, serving?.visitors);
  // A shared server's front page shows its own upstream accounts.
  const shared = team ? undefined : sharedConnections(tools, host, options.sandbox);
  const served = { toolkits, tools, shared };
  listening.serve(registryFor(serving?.host ?? host, listening.publicUrl), served, pages, serving);
}

/** `host` with its upstream requests recorded, when telemetry is on (per user too: each person's host sends through it). */
function recorded(host: Host): Host {
  const on = telemetry();
  return on ? { ...host, fetch: on.upstreamFetch(hostFetch(host)) } : host;
}

/**
 * The per-user parts, opened before anything listens so the pages and tools share its store.
 * @throws Error when per-user serving is asked of stdio or the sandbox, or its store cannot open.
 */
async function openTeam(options: ServerOptions, logger: Logger) {
  if (options.transport !== "http")
    throw new Error(
      "--credentials per-user needs --transport http: over stdio there is one person, who signs in with `toolkits-mcp login`.",
    );
  if (options.sandbox)
    throw new Error(
      "--credentials per-user cannot run on --sandbox, whose fakes accept one shared identity.",
    );
  if (options.accounts)
    throw new Error(
      "--account chooses among this machine's sign-ins; per user, each person's accounts are their own: choose one in the connector URL (/mcp/pager@eu).",
    );
  const { openTeam: open } = await import("./team/index.js");
  return open(options, logger);
}

main().catch((error: unknown) => {
  process.stderr.write(`toolkits-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
});
