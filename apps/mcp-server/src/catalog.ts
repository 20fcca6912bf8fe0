import { readFileSync } from "node:fs";
import type { Tool } from "@modelcontextprotocol/server";

/**
 * The `tools/list` entries the build prepared (`dist/tools.json`, written by scripts/bundle.mjs from
 * the same definitions), by tool name. Empty when the file is absent, e.g. when run from source:
 * the registry then converts the definitions itself.
 */
export function prebuiltListing(): ReadonlyMap<string, Tool> {
  try {
    const tools = JSON.parse(readFileSync(new URL("./tools.json", import.meta.url), "utf8")) as Tool[];
    return new Map(tools.map((tool) => [tool.name, tool]));
  } catch {
    return new Map();
  }
}
