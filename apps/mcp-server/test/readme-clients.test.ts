import { readFileSync } from "node:fs";
import { envHost } from "@toolkits/core";
import { createToolRegistry } from "@toolkits/core/mcp";
import { describe, expect, it } from "vitest";
import { TOOLKITS } from "../src/toolkits.js";

const README = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");
/** Anthropic's cap on a tool name, which Claude Code's `mcp__<server>__<tool>` must meet. */
const MAX_TOOL_NAME = 64;

const SERVED = createToolRegistry(
  Object.values(TOOLKITS).flatMap((kit) => kit.tools),
  envHost({}),
  { names: "underscore" },
).listing.map((tool) => tool.name);
const LONGEST = SERVED.reduce((longest, name) => (name.length > longest.length ? name : longest));

interface Example {
  kind: "json block" | "inline json" | "claude mcp add";
  server: string;
}

/** The server names of the README's client configurations: JSON blocks, inline JSON, `claude mcp add`. */
function clientExamples(text: string): Example[] {
  const blocks = [...text.matchAll(/^```json\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? "");
  const spans = [...text.matchAll(/`(\{"(?:mcpServers|servers)"[^`]*)`/g)].map((match) => match[1] ?? "");
  const added = [...text.matchAll(/`claude mcp add (\S+) /g)].map((match) => match[1] ?? "");
  return [
    ...blocks.flatMap((block) =>
      serverNames(block).map((server) => ({ kind: "json block" as const, server })),
    ),
    ...spans.flatMap((span) => serverNames(span).map((server) => ({ kind: "inline json" as const, server }))),
    ...added.map((server) => ({ kind: "claude mcp add" as const, server })),
  ];
}

function serverNames(json: string): string[] {
  const config = JSON.parse(json) as { mcpServers?: object; servers?: object };
  return [...Object.keys(config.mcpServers ?? {}), ...Object.keys(config.servers ?? {})];
}

describe("the README's client examples", () => {
  const examples = clientExamples(README);

  it("are all found: JSON blocks, inline JSON and claude mcp add", () => {
    expect(new Set(examples.map((example) => example.kind))).toEqual(
      new Set(["json block", "inline json", "claude mcp add"]),
    );
  });

  it(`name the server so that mcp__<server>__${LONGEST} stays within ${MAX_TOOL_NAME} characters`, () => {
    const tooLong = examples.filter(({ server }) => `mcp__${server}__${LONGEST}`.length > MAX_TOOL_NAME);
    expect(tooLong).toEqual([]);
  });

  it("are followed by why, in figures that hold", () => {
    const prose = README.replace(/\s+/g, " ");
    const says = (text: string) => expect(prose.includes(text), `the README says ${text}`).toBe(true);
    says("`mcp__<server>__<tool>`");
    says(`\`${LONGEST}\` (${LONGEST.length} characters), leaves 10`);
    says("`toolkits-mcp` would push five marketing tools past the cap");
    expect(MAX_TOOL_NAME - `mcp____${LONGEST}`.length).toBe(10);
    const pushedOut = SERVED.filter((name) => `mcp__toolkits-mcp__${name}`.length > MAX_TOOL_NAME);
    expect(pushedOut).toHaveLength(5);
    expect(pushedOut.every((name) => name.startsWith("MarketingApi_"))).toBe(true);
  });
});
