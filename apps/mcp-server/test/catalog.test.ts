import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { Tool } from "@modelcontextprotocol/server";
import { envHost } from "@toolkits/core";
import { createToolRegistry, toMcpTool } from "@toolkits/core/mcp";
import { describe, expect, it } from "vitest";
import { TOOLKITS } from "../src/toolkits.js";

const DEFINITIONS = Object.values(TOOLKITS).flatMap((kit) => kit.tools);

describe("the tools/list entries prepared at build time", () => {
  it("are exactly what the tool definitions give, in catalogue order", () => {
    const prebuilt = JSON.parse(readFileSync(new URL("../dist/tools.json", import.meta.url), "utf8"));
    expect(prebuilt).toEqual(DEFINITIONS.map(toMcpTool));
    expect(prebuilt).toHaveLength(138);
  });
});

// One file per tool of what a model is shown, so that any change to it is a diff in review.
const SNAPSHOTS = new URL("./__toolsnaps__/", import.meta.url);
const UPDATE = "npx -y pnpm@10.34.8 --filter @toolkits/mcp-server test:update-snapshots";
// The listing depends on the tools and the name form only; the host is never asked.
const SERVED = createToolRegistry(DEFINITIONS, envHost({}), { names: "underscore" }).listing;

// `vitest -u` (what the update command runs) rewrites the files instead of comparing them.
const updating = () => expect.getState().snapshotState.snapshotUpdateState === "all";

// Top-level fields in this order, any others after them by name; inside, the order a model reads them in.
const FIELDS = ["name", "title", "description", "inputSchema", "outputSchema", "annotations"];
const rank = (key: string) => (FIELDS.includes(key) ? FIELDS.indexOf(key) : FIELDS.length);

/** The entry as a snapshot file: pretty JSON with a final newline. */
function snapshotText(tool: Tool): string {
  const fields = Object.entries(tool).sort(([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : 1));
  return `${JSON.stringify(Object.fromEntries(fields), null, 2)}\n`;
}

describe("the tool snapshots (test/__toolsnaps__)", () => {
  for (const tool of SERVED) {
    it(`${tool.name} is served as its snapshot says`, () => {
      const file = new URL(`${tool.name}.json`, SNAPSHOTS);
      const actual = snapshotText(tool);
      const committed = existsSync(file) ? readFileSync(file, "utf8") : undefined;
      if (updating()) {
        mkdirSync(SNAPSHOTS, { recursive: true });
        if (committed !== actual) writeFileSync(file, actual);
        return;
      }
      expect(committed, `${tool.name} has no snapshot; run ${UPDATE}`).toBeDefined();
      // The diff shows the committed file as expected (-) and what tools/list serves as received (+).
      expect(actual, `${tool.name} changed; if intended, run ${UPDATE}`).toBe(committed);
    });
  }

  it("has none for a tool that is not served", () => {
    const served = new Set(SERVED.map((tool) => `${tool.name}.json`));
    const files = existsSync(SNAPSHOTS) ? readdirSync(SNAPSHOTS) : [];
    const stale = files.filter((file) => file.endsWith(".json") && !served.has(file));
    if (updating()) {
      for (const file of stale) rmSync(new URL(file, SNAPSHOTS));
      return;
    }
    expect(stale, `snapshots of tools no longer served; run ${UPDATE}`).toEqual([]);
  });
});
