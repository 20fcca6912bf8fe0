#!/usr/bin/env node
// Runs every package's test suite on other Node.js lines than the one running this script, each
// from the `node` npm package (cached), after the workspace was built and tested on this one:
// the toolkits and the server support Node 20, 22 and 24. Prints one summary line per version.
// Usage: node scripts/test-node.mjs 22 24
import { spawn } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { stripVTControlCharacters } from "node:util";
import { cacheDir, installNode, versionOf } from "./node-binary.mjs";
import { pnpmCommand } from "./workspace.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Runs `turbo run test` (tests only: the build is Node-independent) with `node` first on PATH. */
function testWith(node) {
  const [command, ...args] = pnpmCommand();
  const env = { ...process.env, PATH: `${dirname(node)}:${process.env.PATH}` };
  const child = spawn(command, [...args, "exec", "turbo", "run", "test", "--only", "--force"], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => {
    process.stdout.write(chunk);
    output += chunk;
  });
  return new Promise((resolvePromise) => child.once("close", (code) => resolvePromise({ code, output })));
}

/** `<package>: N passed` for each package's vitest summary in turbo's output. */
function summary(output) {
  const plain = stripVTControlCharacters(output);
  return [...plain.matchAll(/^(\S+):test:\s+Tests\s+(.+?)\s*\(\d+\)\s*$/gm)].map(
    ([, pkg, counts]) => `${pkg} ${counts}`,
  );
}

const majors = process.argv.slice(2);
if (!majors.length) throw new Error("Name the Node major versions to test on, e.g. 22 24.");
const results = [];
for (const major of majors) {
  const node = installNode(join(cacheDir("toolkits-node"), major), major);
  const { code, output } = await testWith(node);
  results.push(
    `Node ${versionOf(node)}: ${code === 0 ? "passed" : "FAILED"} (${summary(output).join("; ")})`,
  );
  if (code !== 0) process.exitCode = 1;
}
console.log(`\nTest suites on other Node lines:\n${results.map((line) => `  ${line}`).join("\n")}`);
