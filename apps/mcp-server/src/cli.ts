#!/usr/bin/env node
import type { Logger } from "@toolkits/core";
import { createToolRegistry, type ToolRegistry } from "@toolkits/core/mcp";
import { environmentHost, sandboxHost, warnMissingCredentials } from "./host.js";
import { stderrLogger } from "./logger.js";
import { parseCommand, type ServerOptions, usage } from "./options.js";
import { VERSION } from "./server.js";
import { runSigninCommand } from "./signin/index.js";
import { serveStdio } from "./stdio.js";
import { selectTools } from "./toolkits.js";

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
  // Loaded only for HTTP: express and the auth stack stay out of a stdio start-up.
  const { serveHttpUntilStopped } = await import("./http.js");
  await serveHttpUntilStopped(registry, options, logger);
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

main().catch((error: unknown) => {
  process.stderr.write(`toolkits-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
});
