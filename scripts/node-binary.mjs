// A Node.js binary of another major version, for what must run on one this machine lacks: the
// conformance suite (Node 22) and the test suite on every Node line we support (22, 24). It comes
// from the `node` npm package, installed with npm into a cache directory on first use.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** `$XDG_CACHE_HOME/<name>`, else `~/.cache/<name>`. */
export function cacheDir(name) {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), name);
}

/**
 * Installs `node@<major>` and `packages` (npm specs) into `dir` unless a working copy is there;
 * resolves to the Node binary's path.
 * @throws Error with npm's output when the install fails, or when no binary of that major came with it.
 */
export function installNode(dir, major, packages = []) {
  const node = join(dir, "node_modules/node/bin/node");
  if (existsSync(node) && versionOf(node).startsWith(`v${major}.`)) return node;
  console.log(
    `Installing Node ${major}${packages.length ? ` and ${packages.join(", ")}` : ""} into ${dir} …`,
  );
  mkdirSync(dir, { recursive: true });
  try {
    // cwd is the cache, so the workspace's .npmrc and package.json stay out of it.
    execFileSync(
      "npm",
      ["install", "--prefix", dir, "--no-save", "--no-audit", "--no-fund", `node@${major}`, ...packages],
      { cwd: dir, stdio: "pipe", encoding: "utf8" },
    );
  } catch (error) {
    console.error(`${error.stdout ?? ""}${error.stderr ?? ""}`);
    throw new Error(`npm install of node@${major} failed (output above)`);
  }
  // The node package fetches its binary in an install script; a blocked script leaves no binary.
  if (!(existsSync(node) && versionOf(node).startsWith(`v${major}.`))) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`the node@${major} package installed no Node ${major} binary (install scripts blocked?)`);
  }
  return node;
}

/** What `node --version` prints, e.g. `v22.23.3`. */
export function versionOf(node) {
  return execFileSync(node, ["--version"], { encoding: "utf8" }).trim();
}
