import { tool as aiTool, jsonSchema, type Tool } from "ai";
import type { Host } from "../context.js";
import { invokeTool } from "../invoke.js";
import type { AnyToolDefinition } from "../tool.js";
import { functionNames, inputParameters } from "./names.js";

/**
 * Adapts tools to the Vercel AI SDK (`generateText({ tools })`): keyed by function-safe names
 * (`Pager_ListIncidents`, since providers reject dots; descriptions name tools the same way), JSON
 * Schema inputs (arguments are validated by the tool itself), the AI SDK's abort signal passed to
 * the upstream calls. A failure is thrown as an Error whose message is the
 * ToolError's text (kind, message, when to retry), which the AI SDK reports to the model.
 */
export function toAiSdkTools(tools: readonly AnyToolDefinition[], host: Host): Record<string, Tool> {
  const names = functionNames(tools);
  return Object.fromEntries(
    names.functions.map(({ name, description, tool }) => [
      name,
      aiTool({
        description,
        inputSchema: jsonSchema(inputParameters(tool, names.rewrite)),
        execute: async (input: unknown, options: { abortSignal?: AbortSignal }) => {
          const outcome = await invokeTool(tool, input, host, { signal: options.abortSignal });
          if (!outcome.ok) throw new Error(names.rewrite(outcome.error.toText()));
          return JSON.parse(names.rewrite(JSON.stringify(outcome.result)));
        },
      }),
    ]),
  );
}
