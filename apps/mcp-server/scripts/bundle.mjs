#!/usr/bin/env node
// Builds the toolkits-mcp binary (dist/cli.js) and the demo (dist/demo.js) as ESM bundles.
// One bundle instead of hundreds of modules roughly halves the cold start: Node's module loader,
// not the code, dominated it. Heavy dependencies that load only on demand (msw for --sandbox, the
// HTTP stack, pino, sign-in, Google's clients, ajv) stay external and are imported when first used.
import { chmodSync, rmSync } from "node:fs";
import { build } from "esbuild";

const EXTERNAL = [
  "msw",
  "msw/*",
  "express",
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
  entryPoints: ["src/cli.ts", "src/demo.ts"],
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
