import childProcess, { type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import type { Readable } from "node:stream";
import { format } from "node:util";
import { observeToolOutcomes } from "../invoke.js";
import { type Logger, silentLogger } from "../logger.js";
import { Redactor, redactWith } from "../redactor.js";
import { observeScopedSecrets, redact } from "../secrets.js";
import type { Sandbox } from "../tool.js";

/**
 * Recognisable credential values for test suites; any of them in any output is a leak. Every
 * suite's scan starts with these; each toolkit's sandbox adds its own (`watchSandboxCredentials`).
 */
export const LEAKCHECK = Object.freeze({
  pagerToken: "LEAKCHECK-pager-token-7Qx2",
  pagerApiToken: "LEAKCHECK-pager-api-token-9Jd4",
  googleToken: "LEAKCHECK-google-token-3Kf8",
  marketingKey: "LEAKCHECK-marketing-key-5Hs1",
  clientSecret: "LEAKCHECK-oauth-client-secret-2Wm6",
});

/** One sighting of a secret value where it must never be. */
export interface Leak {
  /** The channel: `tool result Pager.ListIncidents`, `stderr`, `child 1234 stdout`, `log`, … */
  where: string;
  /** The secret's first characters, never the whole value. */
  secret: string;
  /** The text around it, with every known secret redacted. */
  excerpt: string;
}

const SHORTEST_WATCHED = 6;
// Environment variable names whose values a child process must never print.
const SECRET_NAME = /TOKEN|SECRET|KEY|PASSWORD|CREDENTIAL/i;

/**
 * Watches text for secret values: the ones it is given, and every value core's `Secret` has
 * wrapped in this process (what `redact()` would scrub, in a secret scope or not), in any form.
 * Records each sighting for `take()`.
 */
export class LeakScan {
  readonly #watched = new Set<string>();
  /** Values wrapped in secret scopes, which `redact()` outside them does not know. */
  readonly #scoped = new Redactor(4_096);
  #found: Leak[] = [];

  constructor(values: Iterable<string> = []) {
    for (const value of values) this.watch(value);
  }

  /** Adds a value to look for (values shorter than 6 characters are ignored: too common). */
  watch(value: string): void {
    if (value.length >= SHORTEST_WATCHED) this.#watched.add(value);
  }

  /** Adds a value a `Secret` wrapped in a secret scope, looked for in every form it travels in. */
  watchScoped(value: string): void {
    this.#scoped.add(value);
  }

  /** Whether `value` is one this scan looks for. */
  watches(value: string): boolean {
    return this.#watched.has(value);
  }

  /** Records a leak for each watched or wrapped secret value in `text`. */
  check(where: string, text: string): void {
    for (const value of this.#watched) {
      const at = text.indexOf(value);
      if (at >= 0) this.#record(where, value, text, at);
    }
    const scrubbed = this.#scrub(text);
    if (scrubbed !== text) {
      const at = firstDifference(text, scrubbed);
      this.#record(where, text.slice(at, at + SHORTEST_WATCHED), text, at);
    }
  }

  /** The leaks seen since the last call. */
  take(): Leak[] {
    const found = this.#found;
    this.#found = [];
    return found;
  }

  #record(where: string, value: string, text: string, at: number): void {
    const excerpt = this.#scrub(text.slice(Math.max(0, at - 80), at + value.length + 80)).replaceAll(
      value,
      "[…]",
    );
    this.#found.push({ where, secret: `${value.slice(0, 6)}…`, excerpt });
  }

  #scrub(text: string): string {
    return redactWith(redact(text), [this.#scoped]);
  }
}

function firstDifference(a: string, b: string): number {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return i;
}

/**
 * Process-wide state, kept on `globalThis` because test runners may evaluate this module afresh
 * for each test file in one process: the streams are wrapped once and report to the latest scan.
 */
interface Taps {
  current?: LeakScan;
  processTapped: boolean;
  loggers: WeakSet<Logger>;
}
const TAPS_KEY = Symbol.for("@toolkits/core/testing/leak-scan");
const registry = globalThis as Record<symbol, Taps | undefined>;
registry[TAPS_KEY] ??= { processTapped: false, loggers: new WeakSet() };
const taps: Taps = registry[TAPS_KEY];
// Per module instance, like the invokeTool it observes.
let observing = false;

/**
 * Adds a sandbox's credentials (its `secrets` and `tokens`) to the installed leak scan, so that a
 * suite running tools with them fails if one shows up in any output. No-op when no scan is installed.
 */
export function watchSandboxCredentials(sandbox: Pick<Sandbox, "secrets" | "tokens">): void {
  for (const value of [...Object.values(sandbox.secrets ?? {}), ...Object.values(sandbox.tokens ?? {})]) {
    taps.current?.watch(value);
  }
}

/** Whether the installed leak scan looks for `value` (false when none is installed). */
export function isWatchedSecret(value: string): boolean {
  return taps.current?.watches(value) ?? false;
}

/**
 * Points every output channel of this process at `scan`: tool outcomes (through core's
 * `invokeTool`), `process.stdout`/`stderr`, `console`, writes to file descriptors 1 and 2 (pino's
 * way), core's `silentLogger` (what tests' hosts log to) and the stdout and stderr of every child
 * process spawned from now on, also checked for the secret-looking values of the child's environment.
 * Values `Secret` wraps in secret scopes (a call acting as one person) join the scan as they come.
 * Returns a function that points them back at the scan installed before.
 */
export function installLeakScan(scan: LeakScan): () => void {
  const previous = taps.current;
  taps.current = scan;
  if (!observing) {
    observing = true;
    observeToolOutcomes((tool, outcome) => {
      const text = outcome.ok ? JSON.stringify(outcome.result) : outcome.error.toText();
      taps.current?.check(`tool result ${tool}`, text);
    });
    observeScopedSecrets((value) => taps.current?.watchScoped(value));
  }
  if (!taps.loggers.has(silentLogger)) {
    taps.loggers.add(silentLogger);
    tapLogger(silentLogger);
  }
  if (!taps.processTapped) {
    taps.processTapped = true;
    tapStreams();
    tapConsole();
    tapChildProcesses();
  }
  return () => {
    taps.current = previous;
  };
}

const report = (where: string, chunk: unknown): void => {
  if (typeof chunk === "string") taps.current?.check(where, chunk);
  else if (chunk instanceof Uint8Array) taps.current?.check(where, Buffer.from(chunk).toString("utf8"));
};

function tapStreams(): void {
  for (const [name, stream] of [
    ["stdout", process.stdout],
    ["stderr", process.stderr],
  ] as const) {
    const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      report(name, chunk);
      return write(chunk, ...rest);
    }) as typeof stream.write;
  }
  const writeSync = fs.writeSync;
  const write = fs.write;
  fs.writeSync = ((fd: number, data: unknown, ...rest: unknown[]) => {
    if (fd === 1 || fd === 2) report(`fd ${fd}`, data);
    return (writeSync as (...args: unknown[]) => number)(fd, data, ...rest);
  }) as typeof fs.writeSync;
  fs.write = ((fd: number, data: unknown, ...rest: unknown[]) => {
    if (fd === 1 || fd === 2) report(`fd ${fd}`, data);
    return (write as (...args: unknown[]) => void)(fd, data, ...rest);
  }) as typeof fs.write;
  syncBuiltinESMExports();
}

function tapConsole(): void {
  // Reached through globalThis: this wraps console methods rather than printing with them.
  const { console: output } = globalThis;
  for (const level of ["log", "info", "warn", "error", "debug", "trace"] as const) {
    const original = output[level].bind(output);
    output[level] = (...args: unknown[]) => {
      taps.current?.check(`console.${level}`, format(...args));
      original(...args);
    };
  }
}

function tapLogger(logger: Logger): void {
  for (const level of ["debug", "info", "warn", "error"] as const) {
    const original = logger[level].bind(logger);
    logger[level] = (message, fields) => {
      taps.current?.check(`log ${level}`, `${message} ${format("%O", fields ?? {})}`);
      original(message, fields);
    };
  }
}

function tapChildProcesses(): void {
  const spawn = childProcess.spawn;
  childProcess.spawn = ((...args: Parameters<typeof spawn>) => {
    const child = (spawn as (...a: unknown[]) => ChildProcess)(...args);
    const options = args.find((arg) => arg && typeof arg === "object" && !Array.isArray(arg)) as
      | { env?: NodeJS.ProcessEnv }
      | undefined;
    const secrets = Object.entries(options?.env ?? {})
      .filter(([name, value]) => SECRET_NAME.test(name) && value && value.length >= SHORTEST_WATCHED)
      .map(([, value]) => value as string);
    for (const secret of secrets) taps.current?.watch(secret);
    tapChild(child, "stdout", child.stdout);
    tapChild(child, "stderr", child.stderr);
    return child;
  }) as typeof spawn;
  syncBuiltinESMExports();
}

/**
 * Sees a child's output as it arrives without consuming it: wrapping `push` leaves the stream's
 * flowing mode to whoever reads it.
 */
function tapChild(child: ChildProcess, name: string, stream: Readable | null): void {
  if (!stream) return;
  const push = stream.push.bind(stream);
  const where = `child ${child.pid} ${name}`;
  stream.push = (chunk: unknown, encoding?: BufferEncoding) => {
    if (chunk !== null) report(where, chunk);
    return push(chunk, encoding);
  };
}
