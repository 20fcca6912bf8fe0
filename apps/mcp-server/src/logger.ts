import { type Logger, type LogLevel, redactJson } from "@toolkits/core";
import type { Logger as Pino } from "pino";

/**
 * A JSON-lines logger on stderr (stdout carries only JSON-RPC under stdio). Every line passes
 * through `redactJson()`, so a secret value that reaches a log field is still never written, and
 * whatever values are registered, a line's structure is never rewritten: each stays valid JSON.
 * pino loads on the first line logged: most runs log nothing at the default level. It is required
 * rather than imported so that the bundle (scripts/bundle.mjs) carries its code but runs it only then.
 */
const LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error"];

export function stderrLogger(level: LogLevel): Logger {
  const threshold = LEVELS.indexOf(level);
  let log: Pino | undefined;
  const pino = (): Pino => {
    if (!log) {
      const { pino: create } = require("pino") as typeof import("pino");
      log = create(
        { level, base: undefined, hooks: { streamWrite: redactJson } },
        create.destination({ fd: 2, sync: true }),
      );
    }
    return log;
  };
  const at =
    (name: LogLevel) =>
    (message: string, fields?: Record<string, unknown>): void => {
      if (LEVELS.indexOf(name) >= threshold) pino()[name](fields ?? {}, message);
    };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}
