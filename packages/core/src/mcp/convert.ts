import type { CallToolResult, Tool } from "@modelcontextprotocol/server";
import type { CallScope } from "../context.js";
import type { ToolOutcome } from "../invoke.js";
import { jsonSchema } from "../json-schema.js";
import type { ToolNames } from "../names.js";
import { rewriteJson } from "../served-json.js";
import type { AnyToolDefinition } from "../tool.js";

/** What a tool call receives from the MCP request that carries it. */
export interface McpCallExtra {
  /** The JSON-RPC id of the request, when there is one. */
  requestId?: string | number;
  /** Aborted when the client cancels the request or goes away. */
  signal: AbortSignal;
  /** Who is calling, in the host's terms (`CallScope.principal`), when the transport knows. */
  principal?: string;
  /**
   * How the client takes a URL elicitation, when it does: `error` (2025-11-25's
   * URL-elicitation-required error) or `input_required` (2026-07-28). Set by `createMcpServer`
   * from the client's declared capabilities; a transport may set it from what it remembers.
   */
  urlElicitation?: "error" | "input_required";
  /** The request's `_meta.progressToken`, when the client asked for progress. */
  progressToken?: string | number;
  /** Sends a notification related to this request (progress). */
  notify(notification: {
    method: "notifications/progress";
    params: { progressToken: string | number; progress: number; total?: number; message?: string };
  }): Promise<void>;
}

/** A definition as MCP lists it (canonical name): title, description, JSON Schemas and all four annotations. */
export function toMcpTool(tool: AnyToolDefinition): Tool {
  const outputSchema = jsonSchema(tool.output, "output");
  // Results may gain `truncated`/`truncation` when capped, so the top level stays open.
  delete outputSchema.additionalProperties;
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchema(tool.input, "input") as Tool["inputSchema"],
    outputSchema: outputSchema as Tool["outputSchema"],
    annotations: {
      title: tool.title,
      readOnlyHint: tool.hints.readOnly,
      destructiveHint: tool.hints.destructive,
      idempotentHint: tool.hints.idempotent,
      openWorldHint: tool.hints.openWorld,
    },
  };
}

/**
 * structuredContent plus the same JSON as text for clients that only read text; errors as
 * `isError`. Tool names in either come out in the served form.
 */
export function toCallToolResult(outcome: ToolOutcome, names: ToolNames): CallToolResult {
  if (!outcome.ok) return errorResult(names.rewrite(outcome.error.toText()));
  const { value, text } = rewriteJson(outcome.result, names.rewrite);
  return { content: [{ type: "text", text }], structuredContent: value };
}

/** An `isError` tool result whose one text content is `text` (e.g. a `ToolError.toText()`). */
export function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text }] };
}

/** The `CallScope` of an MCP call: its signal and principal, and progress sent as notifications when the client asked. */
export function callScope(extra: McpCallExtra): CallScope {
  const token = extra.progressToken;
  const { signal, principal } = extra;
  if (token === undefined) return { signal, principal };
  return {
    signal,
    principal,
    progress: ({ progress, total, message }) => {
      extra
        .notify({
          method: "notifications/progress",
          params: { progressToken: token, progress, total, message },
        })
        .catch(() => {});
    },
  };
}
