import { chmod, mkdir, open, rename, unlink } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join } from "node:path";

/** The directory below an XDG base directory that holds the server's own files. */
const OWN_DIRECTORY = "toolkits-mcp";

/** The XDG base directories the server keeps its files under, with their defaults below the home directory. */
const XDG_DEFAULTS = {
  XDG_CONFIG_HOME: [".config"],
  XDG_STATE_HOME: [".local", "state"],
} as const;

/**
 * `<base>/toolkits-mcp/<file>`, where `<base>` is the XDG variable's directory, or its default below
 * the home directory when it is unset or not absolute (the XDG spec says to ignore a relative one).
 */
export function xdgFile(env: NodeJS.ProcessEnv, variable: keyof typeof XDG_DEFAULTS, file: string): string {
  const configured = env[variable];
  const base = configured && isAbsolute(configured) ? configured : join(homedir(), ...XDG_DEFAULTS[variable]);
  return join(base, OWN_DIRECTORY, file);
}

/**
 * Makes sure `directory` exists, creating it and any missing parent with mode 0700. An existing
 * directory keeps its mode (it may be `/tmp`, or someone else's), except the server's own
 * `…/toolkits-mcp` (see `xdgFile`), which is tightened to 0700.
 * @throws the file system's error.
 */
export async function privateDirectory(directory: string): Promise<void> {
  // mkdir gives each directory it creates 0700 less the umask, which can only take bits away.
  const created = await mkdir(directory, { recursive: true, mode: 0o700 });
  if (created === undefined && basename(directory) === OWN_DIRECTORY) await chmod(directory, 0o700);
}

/**
 * Replaces `path` with `text` so that a reader (or a crash) never sees half a file: a temporary
 * file in the same directory, synced, then renamed over it. The file is mode 0600; a missing
 * directory is created as `privateDirectory` does.
 * @throws the file system's error (the temporary file is removed).
 */
export async function writePrivateFile(path: string, text: string): Promise<void> {
  const directory = dirname(path);
  await privateDirectory(directory);
  // node:crypto loads with the first file written, not at every start.
  const { randomBytes } = await import("node:crypto");
  const temporary = join(
    directory,
    `.${basename(path)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`,
  );
  const file = await open(temporary, "wx", 0o600);
  try {
    await file.writeFile(text);
    await file.sync();
    await file.close();
    await rename(temporary, path);
  } catch (error) {
    await file.close().catch(() => {});
    await unlink(temporary).catch(() => {});
    throw error;
  }
}
