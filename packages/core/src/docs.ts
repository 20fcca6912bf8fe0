import { servedName } from "./names.js";
import type { AnyToolDefinition } from "./tool.js";

const yesNo = (value: boolean): string => (value ? "yes" : "no");

/** First sentence of a description, for a one-line table cell. */
function summary(description: string): string {
  const sentence = /^[\s\S]*?[.!?](?=\s|$)/.exec(description)?.[0] ?? description;
  return sentence.replace(/\s+/g, " ").replace(/\|/g, "\\|").trim();
}

/**
 * A Markdown table of tools generated from their definitions: name, the name MCP clients and the
 * function-calling adapters see by default (`Pager_WhoAmI`), what it does (first sentence of the
 * description), parameters (required ones marked `*`) and the behaviour hints.
 */
export function toolTable(tools: readonly AnyToolDefinition[]): string {
  const rows = tools.map((tool) => {
    const shape = tool.input.shape as Record<string, { isOptional(): boolean }>;
    const params = Object.entries(shape)
      .map(([name, schema]) => `\`${name}\`${schema.isOptional() ? "" : "*"}`)
      .join(", ");
    const { readOnly, destructive, idempotent } = tool.hints;
    return `| \`${tool.name}\` | \`${servedName(tool.name, "underscore")}\` | ${summary(tool.description)} | ${params || "none"} | ${yesNo(readOnly)} | ${yesNo(destructive)} | ${yesNo(idempotent)} |`;
  });
  return [
    "| Tool | Served as | What it does | Parameters (`*` required) | Read-only | Destructive | Idempotent |",
    "|---|---|---|---|---|---|---|",
    ...rows,
  ].join("\n");
}
