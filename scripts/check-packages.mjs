#!/usr/bin/env node
// Packs every publishable package as it would be published and checks the tarballs:
// publint (package.json, exports, files) and Are the Types Wrong (types resolve under node16 ESM).
// Exit 1 on any problem. Run after `pnpm build`.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PUBLISHED_PACKAGES, pnpmCommand } from "./workspace.mjs";

const pnpm = pnpmCommand();

/** Runs a command quietly; on failure prints what it said and rethrows. */
function run(command, args, cwd) {
  try {
    execFileSync(command, args, { cwd, encoding: "utf8", stdio: "pipe" });
  } catch (error) {
    console.error(`${error.stdout ?? ""}${error.stderr ?? ""}`);
    throw error;
  }
}

const out = mkdtempSync(join(tmpdir(), "toolkits-pack-"));
let failed = 0;
try {
  for (const dir of PUBLISHED_PACKAGES) {
    const before = new Set(readdirSync(out));
    run(pnpm[0], [...pnpm.slice(1), "pack", "--pack-destination", out], dir);
    const tarball = join(
      out,
      readdirSync(out).find((file) => !before.has(file)),
    );
    try {
      run(pnpm[0], [...pnpm.slice(1), "exec", "publint", "run", tarball, "--strict"], ".");
      // The server is a bin, not a library: it has no entry points to type.
      if (dir !== "apps/mcp-server")
        run(pnpm[0], [...pnpm.slice(1), "exec", "attw", tarball, "--profile", "esm-only"], ".");
      console.log(`${dir}: publint${dir === "apps/mcp-server" ? "" : " and attw"} pass`);
    } catch {
      console.error(`${dir}: failed (see above)`);
      failed++;
    }
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
if (failed) {
  console.error(`${failed} package(s) failed the checks.`);
  process.exit(1);
}
