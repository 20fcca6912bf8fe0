import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Logger } from "@toolkits/core";
import type { ToolRegistry } from "@toolkits/core/mcp";
import { createMcpServer } from "./server.js";

/** Serves over stdin/stdout until SIGINT, SIGTERM or stdin closes, then exits with 0. */
export async function serveStdio(registry: ToolRegistry, logger: Logger): Promise<void> {
  const server = createMcpServer(registry);
  let closing = false;
  const shutdown = (reason: string) => {
    if (closing) return;
    closing = true;
    logger.info("shutting down", { reason });
    server.close().finally(() => process.exit(0));
  };
  process.once("SIGINT", () => shutdown("SIGINT"));
  process.once("SIGTERM", () => shutdown("SIGTERM"));
  process.stdin.once("end", () => shutdown("stdin closed"));
  await server.connect(new StdioServerTransport());
  logger.info("serving over stdio", { tools: registry.listing.length });
}
