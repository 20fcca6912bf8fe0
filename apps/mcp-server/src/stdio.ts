import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Logger } from "@toolkits/core";
import type { ToolRegistry } from "@toolkits/core/mcp";
import { createMcpServer } from "./server.js";

/**
 * Serves over stdin/stdout until SIGINT, SIGTERM or stdin closes; then lets the calls in flight
 * finish and answer (a client may close stdin right after its last request) and exits with 0.
 */
export async function serveStdio(registry: ToolRegistry, logger: Logger): Promise<void> {
  const inFlight = new Set<Promise<unknown>>();
  const server = createMcpServer({
    ...registry,
    call(name, args, extra) {
      const call = registry.call(name, args, extra);
      inFlight.add(call);
      void call.finally(() => inFlight.delete(call));
      return call;
    },
  });
  let closing = false;
  const shutdown = async (reason: string) => {
    if (closing) return;
    closing = true;
    logger.info("shutting down", { reason, in_flight: inFlight.size });
    await Promise.allSettled([...inFlight]);
    // Let the last answers reach stdout before the transport closes.
    await new Promise((resolve) => setImmediate(resolve));
    await server.close().finally(() => process.exit(0));
  };
  process.once("SIGINT", () => void shutdown("SIGINT"));
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  process.stdin.once("end", () => void shutdown("stdin closed"));
  await server.connect(new StdioServerTransport());
  logger.info("serving over stdio", { tools: registry.listing.length });
}
