#!/usr/bin/env node
// Builds each view into one self-contained HTML file, dist/views/<id>.html: its script bundled and
// minified by esbuild and inlined, its styles (the shared base, its own, a library's) inlined. A
// view loads nothing from anywhere, which the hosts' default CSP requires.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { build, transform } from "esbuild";

const VIEWS = ["incidents", "oncall", "grid", "picker", "metrics"];
const TITLES = {
  incidents: "Incidents",
  oncall: "On call now",
  grid: "Sheet grid",
  picker: "Drive picker",
  metrics: "Campaign metrics",
};
/** Styles a view takes from a library besides its own. */
const LIBRARY_CSS = { metrics: ["uplot/dist/uPlot.min.css"] };
const require = createRequire(import.meta.url);
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
    plugins: [zodEnglishOnly],
    logLevel: "warning",
  });
  const own = existsSync(new URL(`src/views/${id}.css`, root)) ? read(`src/views/${id}.css`) : "";
  const library = (LIBRARY_CSS[id] ?? []).map((path) => readFileSync(require.resolve(path), "utf8"));
  const { code: css } = await transform([...library, read("src/ui/base.css"), own].join("\n"), {
    loader: "css",
    minify: true,
  });
  // `</script` inside the script would end the element early: `<\/script` means the same in JavaScript.
  const script = outputFiles[0].text.replace(/<\/script/gi, "<\\/script");
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${TITLES[id]}</title><style>${css}</style></head><body><script>${script}</script></body></html>`;
  writeFileSync(new URL(`dist/views/${id}.html`, root), html);
}
