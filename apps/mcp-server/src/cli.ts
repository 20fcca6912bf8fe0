#!/usr/bin/env node
import { createToolRegistry } from "@toolkits/core/mcp";
import { prebuiltListing } from "./catalog.js";
import { environmentHost, sandboxHost, warnMissingCredentials } from "./host.js";
import { stderrLogger } from "./logger.js";
import { parseCommand, usage } from "./options.js";
import { servePagesOnLoopback, toolkitPages } from "./pages.js";
import { VERSION } from "./server.js";
import { serveStdio } from "./stdio.js";
import { selectTools } from "./toolkits.js";

const SIGNIN_COMMANDS = ["login", "logout", "auth"];

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (SIGNIN_COMMANDS.includes(argv[0] ?? "")) {
    const { runSigninCommand } = await import("./signin/index.js");
    process.exitCode = await runSigninCommand(argv, stderrLogger("info"));
    return;
  }
  const parsed = parseCommand(argv);
  if (parsed.command === "help") return void process.stdout.write(usage());
  if (parsed.command === "version") return void process.stdout.write(`${VERSION}\n`);
  const { options } = parsed;
  const logger = stderrLogger(options.logLevel);
  const { toolkits, tools } = selectTools(options);
  let pagesUrl: string | undefined;
  const hostOptions = { logger, maxResultBytes: options.maxResultBytes, pagesUrl: () => pagesUrl };
  const host = options.sandbox ? await sandboxHost(toolkits, hostOptions) : environmentHost(hostOptions);
  if (!options.sandbox) await warnMissingCredentials(toolkits, host);
  // Built once: every request, over either transport, reads this registry.
  const registry = createToolRegistry(tools, host, {
    names: options.toolNames,
    catalog: options.catalog,
    prebuilt: prebuiltListing(),
    mentionable: toolkits.flatMap((kit) => kit.tools.map((tool) => tool.name)),
  });
  const pages = toolkitPages(toolkits);
  if (options.transport === "stdio") {
    if (pages) pagesUrl = await servePagesOnLoopback(pages);
    return serveStdio(registry, logger);
  }
  // Loaded only for HTTP: express and the auth stack stay out of a stdio start-up.
  const { serveHttpUntilStopped } = await import("./http.js");
  pagesUrl = await serveHttpUntilStopped(registry, { ...options, pages }, logger);
}

main().catch((error: unknown) => {
  process.stderr.write(`toolkits-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
});
