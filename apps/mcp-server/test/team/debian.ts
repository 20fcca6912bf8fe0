// Real programs the team tests run (redis-server, haproxy), found on PATH, /usr/bin or /usr/sbin.
// When one is missing and the tests run as root on Debian (CI), Debian's package is installed once;
// otherwise one line says what to install. Installing takes a while: look binaries up from a
// `beforeAll` with a timeout of a few minutes (`INSTALL_TIMEOUT_MS`).
import { execFile } from "node:child_process";
import { accessSync, constants, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";

const exec = promisify(execFile);

/** How long a first run may spend installing a package: give `beforeAll` at least this much. */
export const INSTALL_TIMEOUT_MS = 5 * 60_000;

const found = new Map<string, Promise<string>>();

/**
 * The path of `program`, installing Debian's `pkg` when root and it is missing.
 * @throws Error of one line naming the package to install, when it cannot be found or installed.
 */
export function debianBinary(program: string, pkg: string, purpose: string): Promise<string> {
  let path = found.get(program);
  if (!path) {
    path = findOrInstall(program, pkg, purpose);
    found.set(program, path);
  }
  return path;
}

function candidates(program: string): string[] {
  const dirs = (process.env.PATH ?? "").split(delimiter).filter(Boolean);
  return [...new Set([...dirs, "/usr/bin", "/usr/sbin"])].map((dir) => join(dir, program));
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function findOrInstall(program: string, pkg: string, purpose: string): Promise<string> {
  const hint = `No ${program} for ${purpose}: install Debian's ${pkg} package (\`sudo apt-get update && sudo apt-get install -y ${pkg}\`).`;
  const present = candidates(program).find(executable);
  if (present) return present;
  if (process.getuid?.() !== 0 || !existsSync("/etc/debian_version")) throw new Error(hint);
  console.warn(`No ${program} found: installing Debian's ${pkg} package (once).`);
  try {
    // Test files run in parallel workers (the sheets picker test may be installing Chromium), and apt
    // takes one install at a time: queue on a lock.
    const install = `apt-get update && apt-get install -y -o DPkg::Lock::Timeout=300 ${pkg}`;
    await exec("flock", [join(tmpdir(), "toolkits-apt.lock"), "sh", "-c", install], {
      timeout: INSTALL_TIMEOUT_MS,
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    const line = (stderr ?? "").split("\n").find((text) => /^E:/.test(text.trim()));
    throw new Error(`${hint}${line ? ` (apt-get: ${line.trim()})` : ""}`);
  }
  const installed = candidates(program).find(executable);
  if (!installed) throw new Error(hint);
  return installed;
}
