import type { AnyToolDefinition } from "../tool.js";

const INVALID = /[^a-zA-Z0-9_-]/g;
const MAX_LENGTH = 64;

/**
 * Function names for frameworks that allow only `[a-zA-Z0-9_-]{1,64}` (OpenAI and others):
 * `Pager.ListIncidents` → `Pager_ListIncidents`. Returns both directions.
 * @throws Error when two tools would map to the same name.
 */
export function functionNames(tools: readonly AnyToolDefinition[]): {
  toFunction: ReadonlyMap<string, string>;
  toTool: ReadonlyMap<string, AnyToolDefinition>;
} {
  const toFunction = new Map<string, string>();
  const toTool = new Map<string, AnyToolDefinition>();
  for (const tool of tools) {
    const name = tool.name.replace(INVALID, "_").slice(0, MAX_LENGTH);
    const clash = toTool.get(name);
    if (clash) throw new Error(`Tools ${clash.name} and ${tool.name} both map to the function name ${name}.`);
    toFunction.set(tool.name, name);
    toTool.set(name, tool);
  }
  return { toFunction, toTool };
}
