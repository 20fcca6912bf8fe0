#!/usr/bin/env node
// Cold start to the first tools/list over stdio, with every toolkit, and the catalogue a model is
// shown (each tool's name, description and input schema), per toolkit and in total.
// Usage: node bench/startup.mjs [--runs 15]
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: { runs: { type: "string", default: "15" }, sandbox: { type: "boolean" } },
});
const extraArgs = values.sandbox ? ["--sandbox"] : [];
const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const messages = [
  {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "0" } },
  },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} },
];

/** Spawns the server, sends initialize + tools/list at once, resolves at the tools/list answer. */
function coldStart() {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [cli, ...extraArgs], { stdio: ["pipe", "pipe", "ignore"] });
    let buffer = "";
    child.stdout.on("data", (chunk) => {
      buffer += chunk;
      for (const line of buffer.split("\n").slice(0, -1)) {
        const message = JSON.parse(line);
        if (message.id === 2) {
          const ms = performance.now() - started;
          child.kill("SIGTERM");
          resolve({ ms, tools: message.result.tools });
        }
      }
      buffer = buffer.slice(buffer.lastIndexOf("\n") + 1);
    });
    child.once("error", reject);
    child.stdin.write(messages.map((m) => `${JSON.stringify(m)}\n`).join(""));
  });
}

const runs = [];
let tools = [];
for (let i = 0; i < Number(values.runs); i++) {
  const result = await coldStart();
  runs.push(result.ms);
  tools = result.tools;
}
runs.sort((a, b) => a - b);
console.log(`Cold start to tools/list over stdio (${tools.length} tools, ${runs.length} runs)`);
console.table({
  ms: {
    min: runs[0].toFixed(0),
    median: runs[Math.floor(runs.length / 2)].toFixed(0),
    max: runs[runs.length - 1].toFixed(0),
    goal: "≤ 300 median",
  },
});

const bytes = (tool) =>
  Buffer.byteLength(
    JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }),
  );
const perToolkit = {};
for (const tool of tools) {
  const prefix = tool.name.split(".")[0];
  perToolkit[prefix] ??= { tools: 0, bytes: 0 };
  perToolkit[prefix].tools++;
  perToolkit[prefix].bytes += bytes(tool);
}
const total = Object.values(perToolkit).reduce((sum, row) => sum + row.bytes, 0);
console.log("Catalogue as a model is shown it (name + description + input schema)");
console.table({ ...perToolkit, total: { tools: tools.length, bytes: total, goal: "≤ 100000" } });
