import type { CallScope, Host } from "../context.js";
import { invokeTool } from "../invoke.js";
import type { AnyToolDefinition } from "../tool.js";
import { functionNames, inputParameters } from "./names.js";

/** One entry of the `tools` array of an OpenAI-style chat or responses request. */
export interface FunctionTool {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** The tools as function definitions, and a way to run the model's function calls. */
export interface FunctionToolSet {
  tools: FunctionTool[];
  /**
   * Runs a function call: `name` as the model sent it (`Pager_ListIncidents`), `args` as its JSON
   * string. Resolves to the string to send back as the tool message's content: the result JSON, or
   * `{"error":{"kind","message","retryable","retry_after_ms"}}`. Never throws.
   */
  call(name: string, args: string, scope?: CallScope): Promise<string>;
}

/**
 * Adapts tools to OpenAI-style function calling: names mapped to `[a-zA-Z0-9_-]{1,64}` (dots are
 * not allowed there) and back, input schemas as JSON Schema, credentials and settings from `host`.
 */
export function toFunctionTools(tools: readonly AnyToolDefinition[], host: Host): FunctionToolSet {
  const names = functionNames(tools);
  return {
    tools: names.functions.map(({ name, description, tool }) => ({
      type: "function",
      function: { name, description, parameters: inputParameters(tool, names.rewrite) },
    })),
    async call(name, args, scope) {
      const tool = names.toTool(name);
      if (!tool) return errorJson("invalid_input", `No function named ${name}.`, false);
      let parsed: unknown;
      try {
        parsed = args.trim() ? JSON.parse(args) : {};
      } catch {
        return errorJson("invalid_input", `The arguments of ${name} are not valid JSON.`, false);
      }
      const outcome = await invokeTool(tool, parsed, host, scope);
      if (outcome.ok) return names.rewrite(JSON.stringify(outcome.result));
      const { kind, message, retryable, retryAfterMs } = outcome.error;
      return errorJson(kind, names.rewrite(message), retryable, retryAfterMs);
    },
  };
}

function errorJson(kind: string, message: string, retryable: boolean, retryAfterMs?: number): string {
  return JSON.stringify({ error: { kind, message, retryable, retry_after_ms: retryAfterMs } });
}
