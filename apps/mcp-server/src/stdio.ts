import { PassThrough } from "node:stream";
import { StdioServerTransport, serveStdio as serveStdioEntry } from "@modelcontextprotocol/server/stdio";
import type { Logger } from "@toolkits/core";
import type { ToolRegistry } from "@toolkits/core/mcp";
import { createServerFor } from "./server.js";

/**
 * Serves over stdin/stdout, for every protocol revision (the client's first message decides),
 * until SIGINT, SIGTERM or stdin closes; then lets the calls in flight finish and answer (a client
 * may close stdin right after its last request) and exits with 0.
 */
export async function serveStdio(registry: ToolRegistry, logger: Logger): Promise<void> {
  const inFlight = new Set<Promise<unknown>>();
  const tracked: ToolRegistry = {
    ...registry,
    call(name, args, extra) {
      const call = registry.call(name, args, extra);
      inFlight.add(call);
      void call.finally(() => inFlight.delete(call));
      return call;
    },
  };
  // The SDK's transport aborts calls in flight when its input ends; it reads this copy of stdin,
  // which ends only once they have answered.
  const input = new PassThrough();
  process.stdin.pipe(input, { end: false });
  const served = serveStdioEntry(() => createServerFor(tracked), {
    transport: new StdioServerTransport(input, process.stdout),
    onerror: (error) => logger.debug("stdio message refused", { error: error.message }),
  });
  let closing = false;
  const shutdown = async (reason: string) => {
    if (closing) return;
    closing = true;
    logger.info("shutting down", { reason, in_flight: inFlight.size });
    await Promise.allSettled([...inFlight]);
    // Let the last answers reach stdout before the transport closes.
    await new Promise((resolve) => setImmediate(resolve));
    await served.close().finally(() => process.exit(0));
  };
  process.once("SIGINT", () => void shutdown("SIGINT"));
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  process.stdin.once("end", () => void shutdown("stdin closed"));
  logger.info("serving over stdio", { tools: registry.listing.length });
}
