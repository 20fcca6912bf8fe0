import { xdgFile } from "../../files.js";

/**
 * The embedded store's default file: `$XDG_STATE_HOME/toolkits-mcp/store.json`, or
 * `~/.local/state/toolkits-mcp/store.json` when `XDG_STATE_HOME` is unset or not absolute.
 */
export function defaultStorePath(env: Readonly<Record<string, string | undefined>>): string {
  return xdgFile(env, "XDG_STATE_HOME", "store.json");
}

/** The default file as help text shows it. */
export const DEFAULT_STORE_HINT = "$XDG_STATE_HOME/toolkits-mcp/store.json";
