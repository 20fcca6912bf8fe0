#!/usr/bin/env node
// Runs the server's goal benchmarks (cold start, a stdio call, HTTP throughput beside their
// references) on other Node.js lines than the one running this script, each from the `node` npm
// package (cached), on the built workspace (the root script `bench:node-lines` builds it first):
// the references run on the same line, so each ratio compares like with like.
// Usage: node scripts/bench-node.mjs 22 24
import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { cacheDir, installNode, versionOf } from "./node-binary.mjs";

const SERVER = resolve(dirname(fileURLToPath(import.meta.url)), "../apps/mcp-server");
const BENCHES = [["bench/startup.mjs"], ["bench/overhead.mjs"], ["bench/load.mjs", "--upstream", "local"]];

const majors = process.argv.slice(2);
if (!majors.length) throw new Error("Name the Node major versions to measure on, e.g. 22 24.");
for (const major of majors) {
  const node = installNode(join(cacheDir("toolkits-node"), major), major);
  console.log(`\n=== Node ${versionOf(node)} ===`);
  for (const bench of BENCHES) {
    const { status } = spawnSync(node, bench, { cwd: SERVER, stdio: "inherit" });
    if (status !== 0) process.exitCode = 1;
  }
}
