import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { Tool } from "@modelcontextprotocol/server";
import { envHost } from "@toolkits/core";
import { createToolRegistry, toMcpTool } from "@toolkits/core/mcp";
import { describe, expect, it } from "vitest";
import { EXAMPLE_BASE } from "../src/clients/markdown.js";
import { iconSet, withIcons } from "../src/icons/index.js";
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
// The listing depends on the tools, the name form and where icons are served only; the host is
// never asked. As served over HTTP at the README's example URL (over stdio, icons travel as data).
const SERVED = withIcons(
  createToolRegistry(DEFINITIONS, envHost({}), { names: "underscore" }),
  iconSet(EXAMPLE_BASE),
  Object.values(TOOLKITS),
).listing;

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

// Annotations only: a schema with nothing else accepts any value, which clients that map schemas
// onto a typed dialect (strict modes, Gemini) cannot take and the Inspector's --strict flags.
const ANNOTATIONS = new Set(["title", "description", "default", "examples", "$comment", "deprecated"]);
const ONE = [
  "items",
  "additionalItems",
  "contains",
  "additionalProperties",
  "propertyNames",
  "if",
  "then",
  "else",
];
const LISTS = ["items", "anyOf", "allOf", "oneOf", "prefixItems"];
const MAPS = ["properties", "patternProperties", "dependencies", "definitions", "$defs"];

/** Where `schema` is less portable than it could be: an untyped subschema, or a `type` list. */
function portabilityProblems(schema: unknown, path: string): string[] {
  if (typeof schema === "boolean")
    return path.endsWith(".additionalProperties") ? [] : [`${path} is ${schema}`];
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return [];
  const node = schema as Record<string, unknown>;
  const own = [
    ...(Object.keys(node).every((key) => ANNOTATIONS.has(key))
      ? [`${path} has no keyword but annotations`]
      : []),
    ...(Array.isArray(node.type) ? [`${path}.type is a list`] : []),
  ];
  const children = [
    ...ONE.filter((key) => key in node && !Array.isArray(node[key])).map((key) => [
      `${path}.${key}`,
      node[key],
    ]),
    ...LISTS.flatMap((key) =>
      (Array.isArray(node[key]) ? node[key] : []).map((sub, i) => [`${path}.${key}[${i}]`, sub]),
    ),
    ...MAPS.flatMap((key) =>
      Object.entries(node[key] ?? {}).map(([name, sub]) => [`${path}.${key}.${name}`, sub]),
    ),
  ];
  return [...own, ...children.flatMap(([at, sub]) => portabilityProblems(sub, at as string))];
}

describe("the served schemas", () => {
  const search = createToolRegistry(DEFINITIONS, envHost({}), { names: "underscore", catalog: "search" });
  const listings = { full: SERVED, search: search.listing };

  it.each(Object.entries(listings))(
    "(%s catalogue) type every subschema with one type, not a list",
    (_, listing) => {
      const problems = listing.flatMap((tool) => [
        ...portabilityProblems(tool.inputSchema, `${tool.name}.inputSchema`),
        ...portabilityProblems(tool.outputSchema, `${tool.name}.outputSchema`),
      ]);
      expect(problems).toEqual([]);
    },
  );

  it("close every input without parameters, which strict-mode converters need spelled out", () => {
    const parameterless = SERVED.filter((tool) => !Object.keys(tool.inputSchema.properties ?? {}).length);
    expect(parameterless).toHaveLength(15);
    expect(parameterless.filter((tool) => tool.inputSchema.additionalProperties !== false)).toEqual([]);
  });
});
