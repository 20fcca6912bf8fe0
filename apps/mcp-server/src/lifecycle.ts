import type { Logger } from "@toolkits/core";
import { telemetry } from "./telemetry/index.js";

/**
 * How a transport stops: once, whatever asked first (SIGTERM, SIGINT, or the transport itself,
 * e.g. stdin closing), by running `stop` with the reason, then exporting what telemetry holds,
 * then exiting with 0.
 */
export interface Lifecycle {
  /** Stops now for `reason`; later calls are ignored. */
  stop(reason: string): void;
}

/** Stops the process through `stop` on SIGTERM or SIGINT, or when `Lifecycle.stop` is called. */
export function onShutdown(stop: (reason: string) => Promise<void>, logger: Logger): Lifecycle {
  let stopping = false;
  const lifecycle: Lifecycle = {
    stop(reason) {
      if (stopping) return;
      stopping = true;
      stop(reason)
        .catch((error: unknown) => logger.error("shutdown failed", { reason, error: String(error) }))
        // What the last calls recorded is exported before the process goes (within its bound).
        .then(() => telemetry()?.shutdown())
        .finally(() => process.exit(0));
    },
  };
  process.once("SIGTERM", () => lifecycle.stop("SIGTERM"));
  process.once("SIGINT", () => lifecycle.stop("SIGINT"));
  return lifecycle;
}
