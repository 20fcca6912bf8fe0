import { type Logger, type LogLevel, redactJson } from "@toolkits/core";
import type { Logger as Pino } from "pino";
import { telemetry } from "./telemetry/index.js";

/**
 * A JSON-lines logger on stderr (stdout carries only JSON-RPC under stdio). Every line passes
 * through `redactJson()`, so a secret value that reaches a log field is still never written, and
 * whatever values are registered, a line's structure is never rewritten: each stays valid JSON.
 * pino loads on the first line logged: most runs log nothing at the default level. It is required
 * rather than imported so that the bundle (scripts/bundle.mjs) carries its code but runs it only then.
 * While tracing is on, a line logged within a traced operation carries its `trace_id` and `span_id`.
 */
const LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error"];

export function stderrLogger(level: LogLevel): Logger {
  const threshold = LEVELS.indexOf(level);
  let log: Pino | undefined;
  const pino = (): Pino => {
    if (!log) {
      const { pino: create } = require("pino") as typeof import("pino");
      log = create(
        { level, base: undefined, hooks: { streamWrite: redactJson }, mixin: traceFields },
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

/**
 * The active span's ids for a log line, while tracing is on. A new object each time: pino writes
 * the line's own fields into what the mixin returns.
 */
const traceFields = (): object => telemetry()?.logFields() ?? {};
