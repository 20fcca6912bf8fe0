// Finds a Chromium or Chrome for the browser tests, installing one when the machine has none, so that
// the README's test command needs nothing but Node and npm. In order: a browser already here
// (CHROME_PATH or CHROME_BIN, the usual system paths, Playwright's cache); Playwright's installer,
// which needs its download host; Debian's chromium package when running as root on Debian or Ubuntu
// (the only source on machines whose network reaches package registries alone). Otherwise one line
// says what to install. turbo passes undeclared variables on to no task, so the variables read here
// count only when a suite runs outside turbo (`pnpm --filter @toolkits/sheets test`).
import { execFile } from "node:child_process";
import { accessSync, constants, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { promisify } from "node:util";
import { chromium } from "playwright-core";

const exec = promisify(execFile);
const require = createRequire(import.meta.url);
const PLAYWRIGHT = dirname(require.resolve("playwright-core/package.json"));
const PLAYWRIGHT_VERSION: string = require("playwright-core/package.json").version;
const INSTALL_TIMEOUT_MS = 8 * 60_000;
const DEBIAN_CHROMIUM = "/usr/bin/chromium";
const NAMES = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"];
const FIXED_PATHS = [
  "/opt/google/chrome/chrome",
  "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
  "/Applications/Chromium.app/Contents/MacOS/Chromium",
];

/**
 * Chromium's flags for a machine like CI's: root (so no sandbox), no GPU, and a closed network that
 * refuses Chromium's background connections many at a time unless they are switched off.
 */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Where a browser may already be. TOOLKITS_BROWSER_CANDIDATES (a PATH-style list, possibly empty)
 * replaces the system paths, so the install path can be tried on a machine that has a browser.
 */
function systemPaths(): string[] {
  const override = process.env.TOOLKITS_BROWSER_CANDIDATES;
  if (override !== undefined) return override.split(delimiter).filter(Boolean);
  const dirs = [...new Set([...(process.env.PATH ?? "").split(delimiter).filter(Boolean), "/usr/bin"])];
  return [...NAMES.flatMap((name) => dirs.map((dir) => join(dir, name))), ...FIXED_PATHS];
}

/** A browser counts when it starts: a download without its shared libraries fails even `--version`. */
async function starts(path: string): Promise<boolean> {
  try {
    accessSync(path, constants.X_OK);
    await exec(path, ["--version"], { timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
}

async function firstThatStarts(paths: (string | undefined)[]): Promise<string | undefined> {
  for (const path of paths) if (path && (await starts(path))) return path;
  return undefined;
}

const installers = [
  {
    what: "Playwright's Chromium",
    applies: () => true,
    install: async () => {
      await exec(process.execPath, [join(PLAYWRIGHT, "cli.js"), "install", "--no-shell", "chromium"], {
        timeout: INSTALL_TIMEOUT_MS,
      });
      return chromium.executablePath();
    },
  },
  {
    what: "Debian's chromium package",
    applies: () => process.getuid?.() === 0 && existsSync("/etc/debian_version"),
    install: async () => {
      // Other test files may be installing their own packages: apt takes one at a time, so queue on
      // the lock the server's tests use too (apps/mcp-server/test/team/debian.ts).
      const install = "apt-get update && apt-get install -y -o DPkg::Lock::Timeout=300 chromium";
      await exec("flock", [join(tmpdir(), "toolkits-apt.lock"), "sh", "-c", install], {
        timeout: INSTALL_TIMEOUT_MS,
        env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
      });
      return DEBIAN_CHROMIUM;
    },
  },
];

/** What went wrong, in the installer's words: its first error line (Playwright's, apt's), else its last line. */
function failureLine(error: unknown): string {
  const { stderr, message } = error as { stderr?: string; message?: string };
  const lines = `${stderr ?? ""}\n${message ?? error}`
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
  return lines.find((line) => /^(Error|E):/.test(line)) ?? lines.at(-1) ?? "";
}

function whatToInstall(): string {
  const how = existsSync("/etc/debian_version")
    ? "install Debian's chromium package (`sudo apt-get update && sudo apt-get install -y chromium`)"
    : `run \`npx -y playwright-core@${PLAYWRIGHT_VERSION} install --no-shell chromium\``;
  return `No Chromium or Chrome for the browser tests: ${how}.`;
}

/** The path of a Chromium or Chrome that starts, installing one if need be; throws one line if none can be had. */
export async function chromiumExecutable(): Promise<string> {
  const { CHROME_PATH, CHROME_BIN } = process.env;
  const found = await firstThatStarts([CHROME_PATH, CHROME_BIN, ...systemPaths(), chromium.executablePath()]);
  if (found) return found;
  for (const { what, install } of installers.filter((installer) => installer.applies())) {
    console.warn(`No Chromium or Chrome found: installing ${what} (once; this takes a minute or two).`);
    try {
      const path = await install();
      if (await starts(path)) return path;
      console.warn(`${what}: installed, but ${path} does not start.`);
    } catch (error) {
      console.warn(`${what}: ${failureLine(error)}`);
    }
  }
  throw new Error(whatToInstall());
}
