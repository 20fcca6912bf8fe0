import { jsonSchema } from "../json-schema.js";
import { toolNames } from "../names.js";
import { rewriteJson } from "../served-json.js";
import type { AnyToolDefinition } from "../tool.js";

/** Tools under function-safe names (`Pager_ListIncidents`), for frameworks that refuse dots. */
export interface FunctionNames {
  /** Each tool with its function name and its description naming tools the same way. */
  functions: readonly { name: string; description: string; tool: AnyToolDefinition }[];
  /** The tool a function name (or canonical name) stands for. */
  toTool(name: string): AnyToolDefinition | undefined;
  /** Rewrites tool names in a result or error text to function names. */
  rewrite(text: string): string;
}

/**
 * Function names for frameworks that allow only `[a-zA-Z0-9_-]{1,64}` (OpenAI and others):
 * `Pager.ListIncidents` → `Pager_ListIncidents`, with descriptions that name tools the same way.
 * @throws Error when two tools would map to the same name.
 */
export function functionNames(tools: readonly AnyToolDefinition[]): FunctionNames {
  const names = toolNames(
    tools.map((tool) => tool.name),
    "underscore",
  );
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return {
    functions: tools.map((tool) => ({
      name: names.served(tool.name),
      description: names.rewrite(tool.description),
      tool,
    })),
    toTool: (name) => byName.get(names.canonical(name) ?? ""),
    rewrite: names.rewrite,
  };
}

/** A tool's input as JSON Schema, tool names in its descriptions rewritten by `rewrite`. */
export function inputParameters(
  tool: AnyToolDefinition,
  rewrite: (text: string) => string,
): Record<string, unknown> {
  return rewriteJson(jsonSchema(tool.input, "input"), rewrite).value;
}
