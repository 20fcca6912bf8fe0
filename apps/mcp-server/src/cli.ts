#!/usr/bin/env node
import { createToolRegistry } from "@toolkits/core/mcp";
import { environmentHost, sandboxHost, warnMissingCredentials } from "./host.js";
import { stderrLogger } from "./logger.js";
import { parseCommand, usage } from "./options.js";
import { VERSION } from "./server.js";
import { serveStdio } from "./stdio.js";
import { selectTools } from "./toolkits.js";

async function main(): Promise<void> {
  const parsed = parseCommand(process.argv.slice(2));
  if (parsed.command === "help") return void process.stdout.write(usage());
  if (parsed.command === "version") return void process.stdout.write(`${VERSION}\n`);
  const { options } = parsed;
  const logger = stderrLogger(options.logLevel);
  const { toolkits, tools } = selectTools(options);
  const host = options.sandbox
    ? await sandboxHost(toolkits, logger, options.maxResultBytes)
    : environmentHost(logger, options.maxResultBytes);
  if (!options.sandbox) await warnMissingCredentials(toolkits, host);
  const registry = createToolRegistry(tools, host);
  await serveStdio(registry, logger);
}

main().catch((error: unknown) => {
  process.stderr.write(`toolkits-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
});
