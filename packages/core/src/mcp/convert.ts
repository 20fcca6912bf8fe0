import type { CallToolResult, ClientCapabilities, Tool } from "@modelcontextprotocol/server";
import type { CallScope } from "../context.js";
import type { ToolOutcome } from "../invoke.js";
import { jsonSchema } from "../json-schema.js";
import type { ToolNames } from "../names.js";
import { knownJsonText } from "../results.js";
import { rewriteJson } from "../served-json.js";
import type { AnyToolDefinition, ProgressUpdate } from "../tool.js";

/** How a client takes a URL elicitation: 2025-11-25's error -32042, or 2026-07-28's `input_required` result. */
export type UrlElicitationForm = "error" | "input_required";

/**
 * Everything about one MCP tool call besides its name and arguments, built once per request by the
 * transport that received it and read by every layer below.
 */
export interface McpCallScope {
  /** The JSON-RPC id of the request, when there is one. */
  requestId?: string | number;
  /** Aborted when the client cancels the request, goes away, or the server stops. */
  signal: AbortSignal;
  /** Aborts `signal`, when the transport made it for this one call (`CallScope.abort`). */
  abort?(reason: unknown): void;
  /** Who is calling, in the host's terms (`CallScope.principal`), when the transport knows. */
  principal?: string;
  /**
   * How this client takes a URL elicitation, when it does (see `urlElicitationFor`). Asked only
   * when a call needs the caller to connect an account, so a transport may look it up lazily.
   */
  urlElicitation?(): UrlElicitationForm | undefined | Promise<UrlElicitationForm | undefined>;
  /** Receives progress, when the client asked for it (a `progressToken`). */
  progress?(update: ProgressUpdate): void;
}

/** What decides a client's URL-elicitation form: its revision and the capabilities it declared. */
export interface ElicitationFacts {
  /** `modern` for 2026-07-28 (capabilities declared per request), `legacy` for the 2025 revisions. */
  era: "modern" | "legacy";
  /** The client's declared capabilities (per request, or at `initialize`); undefined when unknown. */
  capabilities: ClientCapabilities | undefined;
  /** Whether this request already answers a connect request (a 2026-07-28 retry): then ask no more. */
  answered?: boolean;
}

/**
 * The one rule for how a client takes a URL elicitation: a 2026-07-28 client declaring it gets an
 * `input_required` result (unless it is already answering one), a 2025 client that declared it at
 * `initialize` gets error -32042, any other gets the link in the error text.
 */
export function urlElicitationFor(facts: ElicitationFacts): UrlElicitationForm | undefined {
  if (!facts.capabilities?.elicitation?.url) return undefined;
  if (facts.era === "legacy") return "error";
  return facts.answered ? undefined : "input_required";
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
  // Its JSON is made of the text already made: the content, then the same object as structuredContent.
  const json = `{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}}`;
  return knownJsonText({ content: [{ type: "text", text }], structuredContent: value }, json);
}

/** An `isError` tool result whose one text content is `text` (e.g. a `ToolError.toText()`). */
export function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text }] };
}

/** The `CallScope` of an MCP call: its signal (and its abort, when it is the call's own), principal and progress sink. */
export function callScope(scope: McpCallScope): CallScope {
  const { signal, abort, principal, progress } = scope;
  return { signal, abort, principal, progress };
}
