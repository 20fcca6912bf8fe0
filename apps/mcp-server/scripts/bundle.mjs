#!/usr/bin/env node
// Builds the toolkits-mcp binary (dist/cli.js) and the demo (dist/demo.js) as ESM bundles.
// One bundle instead of hundreds of modules roughly halves the cold start: Node's module loader,
// not the code, dominated it. Dependencies are bundled too, as installing each one is paid by every
// first `npx` start; what only some runs need (msw and the fakes for --sandbox, Google's clients,
// ajv, the sign-in and HTTP auth stacks) is imported where it is used, which leaves it in chunks of
// its own that load on demand; pino and the MCP SDK's JSON Schema validator are bundled apart
// (dist/pino.cjs, dist/sdk-ajv.cjs) and required on first use.
import { chmodSync, cpSync, rmSync, writeFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { toMcpTool } from "@toolkits/core/mcp";
import { build } from "esbuild";

/**
 * Split into a chunk of its own, a dynamically imported CommonJS module gets only a default export
 * from esbuild (evanw/esbuild#3245) where Node also gives its named exports: `(await
 * import("ajv")).Ajv`, say, or gaxios' `HttpsProxyAgent`. Such an import is given an ES module in
 * between that exports the names Node finds in it.
 */
const commonJsNamedExports = {
  name: "commonjs-named-exports",
  setup(bundler) {
    const FACADE = "commonjs-facade";
    bundler.onResolve({ filter: /.*/ }, async ({ path, kind, importer, resolveDir, pluginData }) => {
      if (kind !== "dynamic-import" || pluginData === FACADE) return undefined;
      const target = await bundler.resolve(path, { kind, importer, resolveDir, pluginData: FACADE });
      if (target.errors.length || target.external || !(await isCommonJs(target.path))) return undefined;
      // Relative, as esbuild names files in the bundle's comments: no build machine's paths.
      return { path: relative(process.cwd(), target.path), namespace: FACADE };
    });
    bundler.onLoad({ filter: /.*/, namespace: FACADE }, async (args) => {
      const path = resolve(args.path);
      const names = Object.keys(await import(pathToFileURL(path).href)).filter((name) => name !== "default");
      const contents = [
        `const cjs = require(${JSON.stringify(path)});`,
        "export default cjs;",
        ...names.map((name, index) => `const name${index} = cjs[${JSON.stringify(name)}];`),
        `export { ${names.map((name, index) => `name${index} as ${JSON.stringify(name)}`).join(", ")} };`,
      ];
      return { contents: contents.join("\n"), resolveDir: dirname(path) };
    });
  },
};

/**
 * zod's messages in its other languages (half of zod's code, all of it on the start-up path, as
 * `z.locales`) are left out: nothing here switches zod's language, so its messages stay English.
 */
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(bundler) {
    bundler.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, ({ path }) => ({
      contents: 'export { default as en } from "./en.js";',
      resolveDir: dirname(path),
    }));
  },
};

/**
 * pino, required on the first line logged (src/logger.ts), is bundled apart as dist/pino.cjs and
 * required from there: most runs log nothing at the default level, and its code (about 150 KB)
 * would otherwise be parsed at every start.
 */
const pinoApart = {
  name: "pino-apart",
  setup(bundler) {
    bundler.onResolve({ filter: /^pino$/ }, ({ kind }) =>
      kind === "require-call" ? { path: "./pino.cjs", external: true } : undefined,
    );
  },
};

/**
 * The SDK's default JSON Schema validator, ajv with its formats (about 290 KB), is evaluated
 * whenever the SDK loads, yet a server uses it only to check what a client answers to a form
 * elicitation, which this one never asks for. It is bundled apart as dist/sdk-ajv.cjs, and the
 * SDK's `_shims` module is replaced by one whose validator requires that on its first use; every
 * validation still goes through the SDK's own validator. Should the SDK's `_shims` export more,
 * the build fails on the missing name.
 */
const SDK_SHIMS = `import process from "node:process";
export class DefaultJsonSchemaValidator {
  #validator;
  getValidator(schema) {
    this.#validator ??= new (require("./sdk-ajv.cjs").AjvJsonSchemaValidator)();
    return this.#validator.getValidator(schema);
  }
}
export { process };`;
const sdkValidatorApart = {
  name: "sdk-validator-apart",
  setup(bundler) {
    bundler.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, () => ({
      path: "_shims",
      namespace: "sdk-validator-apart",
    }));
    bundler.onLoad({ filter: /.*/, namespace: "sdk-validator-apart" }, () => ({ contents: SDK_SHIMS }));
    bundler.onResolve({ filter: /^\.\/sdk-ajv\.cjs$/ }, ({ path }) => ({ path, external: true }));
  },
};

/** Whether esbuild reads the module at `path` as CommonJS. */
async function isCommonJs(path) {
  const { metafile } = await build({
    entryPoints: [path],
    format: "esm",
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  return Object.values(metafile.inputs)[0]?.format === "cjs";
}

rmSync(new URL("../dist", import.meta.url), { recursive: true, force: true });
await build({
  // toolkits.js is also the build's own list of toolkits (below), so the list is written once;
  // options/markdown.js and clients/markdown.js give scripts/docs.mjs the README's settings tables
  // and client section, registry.js the MCP Registry entry (server.json).
  entryPoints: [
    "src/cli.ts",
    "src/demo.ts",
    "src/toolkits.ts",
    "src/options/markdown.ts",
    "src/clients/markdown.ts",
    "src/registry.ts",
  ],
  outdir: "dist",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // `open` runs the xdg-open script it ships, from its own directory, where a Linux machine has
  // none; a bundle cannot carry it (packing drops its executable bit), so open stays a dependency.
  external: ["open"],
  // Whitespace only: names and syntax stay as written, so stack traces and error names read as the
  // source does, and so do class names, which oidc-provider keys each model's records by (syntax
  // minification drops a class expression's unused name). Node compiles every byte it loads at
  // start, and the bundle's start loads about 1 MB.
  minifyWhitespace: true,
  sourcemap: true,
  // The maps still name each original file and line (for --enable-source-maps) but leave out its
  // text, which would more than double the package.
  sourcesContent: false,
  // Bundled CommonJS dependencies still call require().
  banner: {
    js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);',
  },
  plugins: [commonJsNamedExports, zodEnglishOnly, pinoApart, sdkValidatorApart],
  logLevel: "warning",
});
// The modules required on first use, each a CommonJS file of its own.
for (const [outfile, module] of [
  ["dist/pino.cjs", "pino"],
  ["dist/sdk-ajv.cjs", "@modelcontextprotocol/server/validators/ajv"],
]) {
  await build({
    stdin: {
      contents: `module.exports = require(${JSON.stringify(module)});`,
      resolveDir: fileURLToPath(new URL("../src", import.meta.url)),
    },
    outfile,
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node20",
    logLevel: "warning",
  });
}
chmodSync(new URL("../dist/cli.js", import.meta.url), 0o755);

// The tools/list entries, converted from zod once here rather than at every start (see catalog.ts).
const { TOOLKITS } = await import("../dist/toolkits.js");
const tools = Object.values(TOOLKITS).flatMap((kit) => kit.tools.map(toMcpTool));
writeFileSync(new URL("../dist/tools.json", import.meta.url), JSON.stringify(tools));

// The MCP Apps views, built by @toolkits/apps: read next to the bundle (its `viewHtml` looks in
// `../dist/views/` from the module that became part of it).
cpSync(
  fileURLToPath(new URL("views/", import.meta.resolve("@toolkits/apps"))),
  fileURLToPath(new URL("../dist/views/", import.meta.url)),
  {
    recursive: true,
  },
);
