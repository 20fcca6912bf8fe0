import { tool as aiTool, type Tool } from "ai";
import type { Host } from "../context.js";
import { invokeTool } from "../invoke.js";
import type { AnyToolDefinition } from "../tool.js";
import { functionNames } from "./names.js";

/**
 * Adapts tools to the Vercel AI SDK (`generateText({ tools })`): keyed by function-safe names
 * (`Pager_ListIncidents`, since providers reject dots), zod input schemas, the AI SDK's abort
 * signal passed to the upstream calls. A failure is thrown as an Error whose message is the
 * ToolError's text (kind, message, when to retry), which the AI SDK reports to the model.
 */
export function toAiSdkTools(tools: readonly AnyToolDefinition[], host: Host): Record<string, Tool> {
  const { toFunction } = functionNames(tools);
  return Object.fromEntries(
    tools.map((definition) => [
      toFunction.get(definition.name) ?? definition.name,
      aiTool({
        description: definition.description,
        inputSchema: definition.input,
        execute: async (input: unknown, options: { abortSignal?: AbortSignal }) => {
          const outcome = await invokeTool(definition, input, host, { signal: options.abortSignal });
          if (!outcome.ok) throw new Error(outcome.error.toText());
          return outcome.result;
        },
      }),
    ]),
  );
}
