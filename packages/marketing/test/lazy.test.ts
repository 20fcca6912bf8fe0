import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const SRC = new URL("../src/", import.meta.url);
// Value imports only: `import type` and `import { type X }`-only lines are erased by the compiler.
const STATIC_IMPORT = /^import\s+(?!type\s)([^;]*?)\s+from\s+"([^"]+)";/gms;

/** Every module the package's main entry loads at start-up, following static value imports. */
function staticGraph(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    if (!file.startsWith("./")) return;
    const source = readFileSync(new URL(file.replace(/\.js$/, ".ts"), SRC), "utf8");
    for (const [, names, specifier] of source.matchAll(STATIC_IMPORT)) {
      if (!specifier || /^\{\s*(type\s+\w+\s*,?\s*)+\}$/.test(names ?? "")) continue;
      visit(
        specifier.startsWith(".")
          ? `./${new URL(specifier, new URL(file, SRC)).href.slice(SRC.href.length)}`
          : specifier,
      );
    }
  };
  visit(entry);
  return seen;
}

describe("start-up cost", () => {
  it("keeps ajv, the request schemas, the sandbox and msw out of the main module's static imports", () => {
    const graph = [...staticGraph("./index.js")];
    expect(graph).toContain("./endpoints.generated.js");
    expect(graph).toContain("zod");
    for (const lazy of ["ajv", "ajv-formats", "msw", "./schemas.generated.js", "./sandbox/index.js"]) {
      expect(graph).not.toContain(lazy);
    }
  });

  it("loads the sandbox's example data only from the sandbox entry", () => {
    const graph = [...staticGraph("./sandbox/index.js")];
    expect(graph).toContain("./sandbox/examples.generated.js");
    expect(graph).toContain("msw");
    expect(graph).not.toContain("./schemas.generated.js");
  });
});
