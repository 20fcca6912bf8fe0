// Telemetry off costs nothing at start: the built binary's static imports (what every start
// evaluates) hold none of the OpenTelemetry SDK or API; it sits in chunks imported only when on.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const DIST = new URL("../../dist/", import.meta.url);
// Minified: `import{a}from"./chunk-X.js"`, `import"./chunk-Y.js"`, `export{b}from"./chunk-Z.js"`;
// a dynamic `import("./sdk-….js")` is not matched, as it runs only when called.
const STATIC_IMPORT = /\b(?:import|export)\s*(?:[\w$*{},\s]*?from\s*)?"\.\/([^"]+\.js)"/g;

/** Every file `entry` imports statically, transitively, itself included. */
function staticGraph(entry: string, seen = new Set<string>()): Set<string> {
  if (seen.has(entry)) return seen;
  seen.add(entry);
  const text = readFileSync(new URL(entry, DIST), "utf8");
  for (const [, next] of text.matchAll(STATIC_IMPORT)) if (next) staticGraph(next, seen);
  return seen;
}

describe("the built binary without telemetry", () => {
  it("evaluates no OpenTelemetry code at start", () => {
    const graph = [...staticGraph("cli.js")];
    expect(graph.length).toBeGreaterThan(1);
    // esbuild names each lazily evaluated module by its path: pnpm's folders say `@opentelemetry+`.
    const carrying = graph.filter((file) =>
      readFileSync(new URL(file, DIST), "utf8").includes("@opentelemetry+"),
    );
    expect(carrying).toEqual([]);
  });

  it("keeps the SDK in a chunk that the start imports only when telemetry is on", () => {
    const cli = [...staticGraph("cli.js")]
      .map((file) => readFileSync(new URL(file, DIST), "utf8"))
      .join("\n");
    expect(cli).toMatch(/import\("\.\/sdk-[A-Z0-9]+\.js"\)/);
  });
});
