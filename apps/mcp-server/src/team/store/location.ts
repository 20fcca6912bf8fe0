import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

/**
 * The embedded store's default file: `$XDG_STATE_HOME/toolkits-mcp/store.json`, or
 * `~/.local/state/toolkits-mcp/store.json` when `XDG_STATE_HOME` is unset or not absolute.
 */
export function defaultStorePath(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.XDG_STATE_HOME;
  const base = configured && isAbsolute(configured) ? configured : join(homedir(), ".local", "state");
  return join(base, "toolkits-mcp", "store.json");
}

/** The default file as help text shows it. */
export const defaultStoreHint = (): string => "$XDG_STATE_HOME/toolkits-mcp/store.json";
