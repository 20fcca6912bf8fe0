// Telemetry off costs nothing at start: the built binary's static imports (what every start
// evaluates) hold none of the OpenTelemetry SDK or API; it sits in chunks imported only when on.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const DIST = new URL("../../dist/", import.meta.url);
const STATIC_IMPORT = /^import\s(?:[^;]*?\sfrom\s)?"\.\/([^"]+)"/gm;

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
    // esbuild names each bundled module's path in a comment: pnpm's folders say `@opentelemetry+`.
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
