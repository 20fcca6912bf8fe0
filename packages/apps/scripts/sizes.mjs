// The built views' sizes, as a host receives each one (minified HTML; over stdio uncompressed
// inside JSON) and gzipped (as HTTP may send it): measured by bench/sizes.mjs, and written into the
// READMEs by scripts/docs.mjs at the repository root, so the figures there are the build's.
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { VIEWS } from "../dist/index.js";

export const KIB = 1024;

/**
 * Each built view's size in bytes: `{ view, minified, gzipped }` (gzip level 9), in the order
 * `VIEWS` lists them. Run after the build. @throws Error (ENOENT) for a view not built.
 */
export function viewSizes() {
  return VIEWS.map((view) => {
    const html = readFileSync(new URL(`../dist/views/${view.id}.html`, import.meta.url));
    return { view: view.id, minified: html.length, gzipped: gzipSync(html, { level: 9 }).length };
  });
}

/** The sizes as a Markdown table, in whole KiB: what the READMEs show between their markers. */
export function viewSizesTable() {
  const kib = (bytes) => `${Math.round(bytes / KIB)} KiB`;
  return [
    "| View | Minified | Gzipped |",
    "|---|---|---|",
    ...viewSizes().map((size) => `| \`${size.view}\` | ${kib(size.minified)} | ${kib(size.gzipped)} |`),
  ].join("\n");
}
