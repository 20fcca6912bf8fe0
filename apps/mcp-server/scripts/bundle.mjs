#!/usr/bin/env node
// Builds the toolkits-mcp binary (dist/cli.js) and the demo (dist/demo.js) as ESM bundles.
// One bundle instead of hundreds of modules roughly halves the cold start: Node's module loader,
// not the code, dominated it. Heavy dependencies that load only on demand (msw for --sandbox, the
// auth stack, pino, sign-in, Google's clients, ajv) stay external and are imported when first used.
import { chmodSync, rmSync, writeFileSync } from "node:fs";
import { toMcpTool } from "@toolkits/core/mcp";
import { build } from "esbuild";

const EXTERNAL = [
  "msw",
  "msw/*",
  "pino",
  "openid-client",
  "open",
  "jose",
  "@googleapis/sheets",
  "@googleapis/drive",
  // Loaded by Node itself so its CommonJS default export keeps its meaning.
  "ajv",
  "ajv-formats",
];

rmSync(new URL("../dist", import.meta.url), { recursive: true, force: true });
await build({
  // toolkits.js is also the build's own list of toolkits (below), so the list is written once.
  entryPoints: ["src/cli.ts", "src/demo.ts", "src/toolkits.ts"],
  outdir: "dist",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: EXTERNAL,
  sourcemap: true,
  // Bundled CommonJS dependencies still call require().
  banner: {
    js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);',
  },
  logLevel: "warning",
});
chmodSync(new URL("../dist/cli.js", import.meta.url), 0o755);

// The tools/list entries, converted from zod once here rather than at every start (see catalog.ts).
const { TOOLKITS } = await import("../dist/toolkits.js");
const tools = Object.values(TOOLKITS).flatMap((kit) => kit.tools.map(toMcpTool));
writeFileSync(new URL("../dist/tools.json", import.meta.url), JSON.stringify(tools));
