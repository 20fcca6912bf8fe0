#!/usr/bin/env node
// Builds each view into one self-contained HTML file, dist/views/<id>.html: its script bundled and
// minified by esbuild and inlined, its styles (the shared base and its own) inlined. A
// view loads nothing from anywhere, which the hosts' default CSP requires.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { pathToFileURL } from "node:url";
import { build, transform } from "esbuild";

const VIEWS = ["incidents", "oncall", "grid", "picker", "metrics"];
const TITLES = {
  incidents: "Incidents",
  oncall: "On call now",
  grid: "Sheet grid",
  picker: "Drive picker",
  metrics: "Campaign metrics",
};
const root = new URL("../", import.meta.url);
const read = (path) => readFileSync(new URL(path, root), "utf8");

/**
 * zod's messages in its other languages are left out (half of zod's code): the views never switch
 * zod's language. The same rule as the server's bundle.
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
 * Code the views' libraries bundle but a view never runs, replaced by stand-ins that throw when
 * called (a view that did would fail its browser test): JSON Schema conversion both ways and zod's
 * ahead-of-time compiler (the SDK checks tool schemas on the server and in clients, not in an App),
 * and the browser JSON Schema validator the MCP client constructs (an App is no client). About a
 * quarter of each view. Each stand-in exports the names of the module it stands in for.
 */
const LEFT_OUT = [
  /[\\/]zod[\\/]v4[\\/]classic[\\/]from-json-schema\.js$/,
  /[\\/]zod[\\/]v4[\\/]core[\\/](to-json-schema|json-schema-processors|json-schema-generator|compile)\.js$/,
  /[\\/]@modelcontextprotocol[\\/]client[\\/]dist[\\/]cfWorkerProvider-[\w-]+\.mjs$/,
];
const leftOut = {
  name: "left-out",
  setup(bundler) {
    bundler.onLoad({ filter: /\.m?js$/ }, async ({ path }) => {
      if (!LEFT_OUT.some((pattern) => pattern.test(path))) return undefined;
      const names = Object.keys(await import(pathToFileURL(path).href));
      const stand = (name) =>
        // Factories run when schemas are defined: they hand back a method that throws only when used.
        name.startsWith("create")
          ? `export const ${name} = () => fail;`
          : name === "default"
            ? "export default fail;"
            : /Processors$/.test(name)
              ? `export const ${name} = {};`
              : `export const ${name} = fail;`;
      const contents = [
        `const fail = () => { throw new Error(${JSON.stringify(`left out of the views: ${path.split(/node_modules[\\/]/).at(-1)}`)}); };`,
        ...names.map(stand),
      ].join("\n");
      return { contents, loader: "js" };
    });
  },
};

/**
 * The MCP SDK's modules declare no `sideEffects`, so a bundler keeps each one a view imports from,
 * used or not; their top-level code only defines things, so a module none of whose exports a view
 * uses (the MCP client class and its OAuth code, beside the protocol an App is built on) is dropped.
 */
const sdkWithoutSideEffects = {
  name: "sdk-without-side-effects",
  setup(bundler) {
    bundler.onResolve({ filter: /.*/ }, async ({ path, ...options }) => {
      if (options.pluginData === "resolving") return undefined;
      const resolved = await bundler.resolve(path, { ...options, pluginData: "resolving" });
      const sdk = /[\\/]@modelcontextprotocol[\\/](client|core)[\\/]dist[\\/]/.test(resolved.path);
      return sdk ? { ...resolved, sideEffects: false } : resolved;
    });
  },
};

/**
 * Chartist's `foreignObject` parses a string as HTML; its charts only ever hand it an element (an
 * axis label made with `textContent`). The string branch is made to throw, so no view holds a way
 * to turn text into markup; the build fails if an upgrade changes the line this relies on.
 */
const CHARTIST_HTML = "container.innerHTML = content;";
const chartistTextOnly = {
  name: "chartist-text-only",
  setup(bundler) {
    bundler.onLoad({ filter: /[\\/]chartist[\\/]dist[\\/]index\.js$/ }, ({ path }) => {
      const source = readFileSync(path, "utf8");
      if (!source.includes(CHARTIST_HTML)) throw new Error(`${path}: "${CHARTIST_HTML}" not found`);
      const refusal = 'throw new TypeError("The views never parse text as HTML.");';
      return { contents: source.replace(CHARTIST_HTML, refusal), loader: "js" };
    });
  },
};

mkdirSync(new URL("dist/views/", root), { recursive: true });
for (const id of VIEWS) {
  const { outputFiles } = await build({
    entryPoints: [new URL(`src/views/${id}.ts`, root).pathname],
    bundle: true,
    minify: true,
    format: "iife",
    platform: "browser",
    target: "es2022",
    legalComments: "none",
    write: false,
    plugins: [zodEnglishOnly, leftOut, sdkWithoutSideEffects, chartistTextOnly],
    logLevel: "warning",
  });
  const own = existsSync(new URL(`src/views/${id}.css`, root)) ? read(`src/views/${id}.css`) : "";
  const { code: css } = await transform([read("src/ui/base.css"), own].join("\n"), {
    loader: "css",
    minify: true,
  });
  // `</script` inside the script would end the element early: `<\/script` means the same in JavaScript.
  const script = outputFiles[0].text.replace(/<\/script/gi, "<\\/script");
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${TITLES[id]}</title><style>${css}</style></head><body><script>${script}</script></body></html>`;
  writeFileSync(new URL(`dist/views/${id}.html`, root), html);
}
