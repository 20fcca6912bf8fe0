#!/usr/bin/env node
import type { Logger } from "@toolkits/core";
import { createToolRegistry, type ToolRegistry } from "@toolkits/core/mcp";
import { environmentHost, sandboxHost, warnMissingCredentials } from "./host.js";
import { localUrl, serveHttp } from "./http.js";
import { authConfigFromEnv } from "./http-auth.js";
import { stderrLogger } from "./logger.js";
import { parseCommand, type ServerOptions, usage } from "./options.js";
import { VERSION } from "./server.js";
import { runSigninCommand } from "./signin/index.js";
import { serveStdio } from "./stdio.js";
import { selectTools } from "./toolkits.js";

/** Grace period for in-flight HTTP calls on shutdown, in milliseconds. */
const SHUTDOWN_GRACE_MS = 15_000;

const SIGNIN_COMMANDS = ["login", "logout", "auth"];

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (SIGNIN_COMMANDS.includes(argv[0] ?? "")) {
    process.exitCode = await runSigninCommand(argv, stderrLogger("info"));
    return;
  }
  const parsed = parseCommand(argv);
  if (parsed.command === "help") return void process.stdout.write(usage());
  if (parsed.command === "version") return void process.stdout.write(`${VERSION}\n`);
  const { options } = parsed;
  const logger = stderrLogger(options.logLevel);
  const registry = await buildRegistry(options, logger);
  if (options.transport === "stdio") return serveStdio(registry, logger);
  await serveOverHttp(registry, options, logger);
}

/** Selects the tools and prepares them once; every request then reads this registry. */
async function buildRegistry(options: ServerOptions, logger: Logger): Promise<ToolRegistry> {
  const { toolkits, tools } = selectTools(options);
  const host = options.sandbox
    ? await sandboxHost(toolkits, logger, options.maxResultBytes)
    : environmentHost(logger, options.maxResultBytes);
  if (!options.sandbox) await warnMissingCredentials(toolkits, host);
  return createToolRegistry(tools, host);
}

async function serveOverHttp(registry: ToolRegistry, options: ServerOptions, logger: Logger): Promise<void> {
  const server = await serveHttp(registry, { ...options, auth: authConfigFromEnv() }, logger);
  logger.warn("serving Streamable HTTP", { url: `${localUrl(server)}/mcp`, tools: registry.listing.length });
  const shutdown = (signal: string) => {
    logger.warn("shutting down: finishing in-flight requests", { signal });
    server.close(() => process.exit(0));
    server.closeIdleConnections();
    setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref();
  };
  process.once("SIGTERM", () => shutdown("SIGTERM"));
  process.once("SIGINT", () => shutdown("SIGINT"));
}

main().catch((error: unknown) => {
  process.stderr.write(`toolkits-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
});
