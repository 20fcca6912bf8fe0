import type { Tool } from "ai";
import type { Host } from "../context.js";
import { invokeTool } from "../invoke.js";
import { loadPeer } from "../peers.js";
import { rewriteJson } from "../served-json.js";
import type { AnyToolDefinition } from "../tool.js";
import { functionNames, inputParameters } from "./names.js";

// Loaded here, so a project without `ai` learns which package to install.
const { tool: aiTool, jsonSchema } = await loadPeer(
  () => import("ai"),
  "@toolkits/core/ai-sdk",
  "ai",
  "^5 || ^6",
);

/**
 * Adapts tools to the Vercel AI SDK, versions 5 and 6 (`generateText({ tools })`): a record of
 * `tool()`s keyed by function-safe names
 * (`Pager_ListIncidents`, since providers reject dots; descriptions name tools the same way), JSON
 * Schema inputs (the tool validates its arguments itself), the AI SDK's abort signal passed to the
 * upstream calls. A failing call throws an Error whose message is the ToolError's text (kind,
 * message, when to retry); the AI SDK catches it and sends it to the model as the call's error text.
 * They are built with the project's own `ai` (a peer dependency), the one its `generateText` needs:
 * tools built by one major version do not run in the other's.
 * @throws Error when two tools would share a function name.
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
          return rewriteJson(outcome.result, names.rewrite).value;
        },
      }),
    ]),
  );
}
