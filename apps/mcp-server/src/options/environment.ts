import { type Environment, InvalidSetting, type Setting, valuesOf } from "./setting.js";
import { SETTINGS } from "./table.js";
import type { ServerOptions } from "./types.js";

/** What a start without arguments prints after a setting's error, as the command line's errors end. */
export const HELP_POINTER = "Run toolkits-mcp --help for every option, variable and command.";

/**
 * A setting's value from its variable in `env`, else its default.
 * @throws InvalidSetting for a malformed value, naming the variable (and its flag) and what is
 *   allowed. Secrets are read as given (`text`), so their values are never quoted here.
 */
export function fromEnvironment(setting: Setting<unknown>, env: Environment): unknown {
  const value = env[setting.env];
  if (value === undefined) return setting.default;
  try {
    return setting.parse(value);
  } catch (error) {
    const source = setting.flag
      ? `option '${setting.flag}' value '${value}' from env '${setting.env}'`
      : `${setting.env} value '${value}'`;
    throw new InvalidSetting(`error: ${source} is invalid. ${(error as Error).message}`);
  }
}

/**
 * The server's options from the environment alone: a start without arguments (the way MCP clients
 * launch it) reads them here, without building the command line and its library.
 * @throws InvalidSetting for a malformed variable (see `fromEnvironment`).
 */
export function serverOptionsFromEnvironment(env: Environment): ServerOptions {
  return { ...valuesOf(SETTINGS, (setting) => fromEnvironment(setting, env)), toolkitEnv: env };
}
