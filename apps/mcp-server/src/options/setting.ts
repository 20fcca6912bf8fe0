/**
 * A value a setting's parser refuses, saying what is allowed. Its own class, not the command-line
 * library's, so that reading settings from the environment alone (a start without arguments, the
 * commonest) does not load that library.
 */
export class InvalidSetting extends Error {
  override name = "InvalidSetting";
}

/**
 * The help sections, in the order `--help` and the README show them. Each setting belongs to one;
 * the README's tables are generated per group.
 */
export const GROUPS = [
  "Transport",
  "Tools",
  "HTTP",
  "HTTP limits",
  "Authentication",
  "Per-user",
  "Store",
  "Upstream",
  "Logging",
  "Telemetry",
  "Sign-in",
  "Toolkits",
] as const;

/** A help section's name, e.g. `HTTP limits`. */
export type Group = (typeof GROUPS)[number];

/** The environment as the server was started with it, never written. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** One thing the server can be told: by a flag and its environment variable, or by the variable alone. */
export interface Setting<T> {
  group: Group;
  /** One line for `--help` and the README: what it does, units included. */
  help: string;
  /** The environment variable, read when the flag is not given. */
  env: string;
  /**
   * The flag as commander takes it (`--port <port>`; `--read-only` for a switch). None for a secret:
   * command lines are visible to every user of the machine (`ps`).
   */
  flag?: string;
  /** Reads a value. @throws InvalidSetting saying what is allowed. */
  parse: (text: string) => T;
  /** The value when neither the flag nor the variable is given. */
  default?: T;
  /** How help and the README show the default, where its value would mislead (a home directory, say). */
  shown?: string;
  /** A value never shown: in help, errors and logs only its name appears. */
  secret?: boolean;
}

/**
 * A variable documented here and read by someone else: the toolkits (passed to them untouched) or
 * the OpenTelemetry SDK (the standard `OTEL_*` variables).
 */
export interface ToolkitVariable {
  env: string;
  help: string;
  secret?: boolean;
}

/** A setting as the table states it; its type comes from `parse`, which the default must match. */
type Spec<T> = Omit<Setting<T>, "group" | "default"> & { default?: NoInfer<T> };

/** Makes the settings of one group; a setting without a default is undefined when not given. */
export function inGroup(group: Group) {
  function make<T>(spec: Spec<T> & { default: NoInfer<T> }): Setting<T>;
  function make<T>(spec: Spec<T>): Setting<T | undefined>;
  function make<T>(spec: Spec<T>): Setting<T> {
    return { group, ...spec };
  }
  return make;
}

/** Settings nested as the options object is. */
export interface SettingTree {
  readonly [key: string]: Setting<unknown> | SettingTree;
}

const isSetting = (node: Setting<unknown> | SettingTree): node is Setting<unknown> =>
  typeof node.parse === "function";

/** Every setting of a tree, in help order: by group, then as the tree lists them. */
export function settingsOf(tree: SettingTree): Setting<unknown>[] {
  const all = Object.values(tree).flatMap((node) => (isSetting(node) ? [node] : settingsOf(node)));
  return all.sort((a, b) => GROUPS.indexOf(a.group) - GROUPS.indexOf(b.group));
}

/** A tree's values, each from `read`. */
export function valuesOf<T extends SettingTree>(
  tree: T,
  read: (setting: Setting<unknown>) => unknown,
): Values<T> {
  const entries = Object.entries(tree).map(([key, node]) => [
    key,
    isSetting(node) ? read(node) : valuesOf(node, read),
  ]);
  return Object.fromEntries(entries) as Values<T>;
}

/** The default as help and the README show it; undefined when there is nothing worth showing. */
export function shownDefault(setting: Setting<unknown>): string | undefined {
  const value = setting.default;
  if (setting.shown !== undefined) return setting.shown;
  if (Array.isArray(value)) return value.length ? value.join(",") : undefined;
  // A switch is off unless given; `BROWSER` is the one on by default, and its help says so.
  return value === undefined || typeof value === "boolean" ? undefined : String(value);
}

type Flatten<T> = { [K in keyof T]: T[K] } & {};

/** The values a tree of settings yields: a setting without a default is an optional property. */
export type Values<T> =
  T extends Setting<infer V>
    ? V
    : Flatten<
        { -readonly [K in keyof T as undefined extends Values<T[K]> ? never : K]: Values<T[K]> } & {
          -readonly [K in keyof T as undefined extends Values<T[K]> ? K : never]?: Values<T[K]>;
        }
      >;

/** Any text, as given. */
export const text = (value: string): string => value;

/** Comma-separated items, trimmed, blanks dropped. */
export const list = (value: string): string[] =>
  value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);

/** A switch's variable: on only for 1, true or yes (any case), so `MCP_SANDBOX=0` is off. */
export const yes = (value: string): boolean => ["1", "true", "yes"].includes(value.toLowerCase());

/** @throws InvalidSetting naming the allowed values. */
export function oneOf<const T extends readonly string[]>(allowed: T): (value: string) => T[number] {
  return (value) => {
    if (allowed.includes(value)) return value as T[number];
    throw new InvalidSetting(`It must be one of ${allowed.join(", ")} (got "${value}").`);
  };
}

/** @throws InvalidSetting naming the range. */
export function integer(min: number, max: number): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (Number.isInteger(parsed) && parsed >= min && parsed <= max) return parsed;
    throw new InvalidSetting(`It must be an integer from ${min} to ${max} (got "${value}").`);
  };
}

/** Seconds per unit of a duration. */
const UNITS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3_600, d: 86_400 };

/** Seconds written with the largest unit that divides them: `3600` → `1h`. */
export const shortDuration = (seconds: number): string => {
  const unit = ["d", "h", "m"].find((name) => seconds % (UNITS[name] ?? 1) === 0) ?? "s";
  return `${seconds / (UNITS[unit] ?? 1)}${unit}`;
};

/**
 * A duration, in seconds: a number of seconds, or a number with a unit (`90s`, `15m`, `1h`, `30d`).
 * @throws InvalidSetting naming the range.
 */
export function duration(minS: number, maxS: number): (value: string) => number {
  return (value) => {
    const match = /^(\d{1,9})([smhd]?)$/.exec(value.trim());
    const seconds = match ? Number(match[1]) * (UNITS[match[2] || "s"] ?? 1) : Number.NaN;
    if (seconds >= minS && seconds <= maxS) return seconds;
    throw new InvalidSetting(
      `It must be a duration from ${shortDuration(minS)} to ${shortDuration(maxS)}: seconds, or a number with a unit (90s, 15m, 1h, 30d) (got "${value}").`,
    );
  };
}

/** Runs `check` on the value, so a malformed one stops the start with exit code 2. */
export function checked(check: (value: string) => unknown): (value: string) => string {
  return (value) => {
    try {
      check(value);
    } catch (error) {
      throw new InvalidSetting((error as Error).message);
    }
    return value;
  };
}
