#!/usr/bin/env node
import { createToolRegistry, type ToolRegistry } from "@toolkits/core/mcp";
import { CommanderError } from "commander";
import { prebuiltListing } from "./catalog.js";
import { deferredSandboxHost, environmentHost, warnMissingCredentials } from "./host.js";
import { stderrLogger } from "./logger.js";
import { program, type ServerOptions } from "./options.js";
import { servePagesOnLoopback, toolkitPages } from "./pages.js";
import { VERSION } from "./server.js";
import { serveStdio } from "./stdio.js";
import { selectTools } from "./toolkits.js";

/** Help and version are answers; any other command-line error exits with 2. */
const ANSWERS = new Set(["commander.helpDisplayed", "commander.help", "commander.version"]);

async function main(): Promise<void> {
  // Sign-in code loads only for the sign-in commands.
  const signin = () => import("./signin/index.js");
  const cli = program(
    {
      serve,
      login: async (provider, options) => (await signin()).loginCommand(provider, options),
      logout: async (provider) => (await signin()).logoutCommand(provider, stderrLogger("info")),
      authStatus: async () => (await signin()).authStatusCommand(),
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

/**
 * Starts the server. What has an address starts first (the pages' listener under stdio, the HTTP
 * server otherwise), so the tools are built knowing where their pages are.
 */
async function serve(options: ServerOptions): Promise<void> {
  const logger = stderrLogger(options.logLevel);
  const { toolkits, tools } = selectTools(options);
  const pages = toolkitPages(toolkits);
  const build = async (pagesUrl: string | undefined) => {
    const hostOptions = {
      logger,
      maxResultBytes: options.maxResultBytes,
      upstream: options.upstream,
      pagesUrl,
    };
    const sandbox = options.sandbox ? deferredSandboxHost(toolkits, hostOptions) : undefined;
    const host = sandbox?.host ?? environmentHost(hostOptions);
    if (!sandbox) await warnMissingCredentials(toolkits, host);
    // Built once: every request, over either transport, reads this registry.
    const registry = createToolRegistry(tools, host, {
      names: options.toolNames,
      catalog: options.catalog,
      prebuilt: prebuiltListing(),
      mentionable: toolkits.flatMap((kit) => kit.tools.map((tool) => tool.name)),
    });
    return sandbox ? callingAfter(sandbox.ready, registry) : registry;
  };
  if (options.transport === "stdio") {
    const pagesUrl = pages && (await servePagesOnLoopback(pages));
    return serveStdio(await build(pagesUrl), logger, {
      maxMessageBytes: options.maxMessageBytes,
      shutdownGraceMs: options.shutdownGraceMs,
    });
  }
  // Loaded only for HTTP: the auth stack stays out of a stdio start-up.
  const { listenHttp } = await import("./http.js");
  const listening = await listenHttp(options, logger);
  listening.serve(await build(listening.publicUrl), pages);
}

/** The registry with every call waiting for `ready` first. */
function callingAfter(ready: () => Promise<void>, registry: ToolRegistry): ToolRegistry {
  return {
    ...registry,
    call: async (name, args, extra) => {
      await ready();
      return registry.call(name, args, extra);
    },
  };
}

main().catch((error: unknown) => {
  process.stderr.write(`toolkits-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
});
