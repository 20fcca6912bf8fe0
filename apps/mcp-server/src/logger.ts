import { type Logger, type LogLevel, redact } from "@toolkits/core";
import { pino } from "pino";

/**
 * A JSON-lines logger on stderr (stdout carries only JSON-RPC under stdio). Every line passes
 * through `redact()`, so a secret value that reaches a log field is still never written.
 */
export function stderrLogger(level: LogLevel): Logger {
  const log = pino(
    { level, base: undefined, hooks: { streamWrite: redact } },
    pino.destination({ fd: 2, sync: true }),
  );
  return {
    debug: (message, fields) => log.debug(fields ?? {}, message),
    info: (message, fields) => log.info(fields ?? {}, message),
    warn: (message, fields) => log.warn(fields ?? {}, message),
    error: (message, fields) => log.error(fields ?? {}, message),
  };
}
