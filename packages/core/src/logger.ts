export type LogLevel = "debug" | "info" | "warn" | "error";

/**
 * Structured log sink handed to tools through their context. Hosts decide where lines go (over
 * stdio that must be stderr) and must redact secrets (`redact()` from this package).
 */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** A logger that drops everything. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
