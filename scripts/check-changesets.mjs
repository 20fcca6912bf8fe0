#!/usr/bin/env node
// Fails when a published package changed since the base branch without a changeset describing it.
// The base is origin/main when the clone has it, else main; on the base itself nothing has changed.
import { execFileSync } from "node:child_process";
import { pnpmCommand } from "./workspace.mjs";

const hasRef = (ref) => {
  try {
    execFileSync("git", ["rev-parse", "--verify", "--quiet", ref], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};
const base = ["origin/main", "main"].find(hasRef);
if (!base) {
  console.log("changesets: no main branch in this clone; nothing to compare against.");
  process.exit(0);
}
const pnpm = pnpmCommand();

try {
  execFileSync(pnpm[0], [...pnpm.slice(1), "exec", "changeset", "status", `--since=${base}`], {
    stdio: "inherit",
  });
} catch {
  console.error(`changesets: a package changed since ${base} without a changeset; run \`pnpm changeset\`.`);
  process.exit(1);
}
