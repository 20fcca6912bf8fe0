import type { AnyToolDefinition } from "@toolkits/core";
import { TOOLKITS } from "../../toolkits.js";

/** The scope every tool that changes something needs, besides its toolkit's. */
export const WRITE_SCOPE = "write";

/** The OAuth scopes of the built-in server, and which of them each tool needs. */
export interface ScopeRules {
  /** Every scope a token may hold here: the served toolkits' ids, then `write` when a write tool is served. */
  supported: string[];
  /** The scopes a tool needs: its toolkit's id, and `write` unless it only reads. */
  needs(tool: AnyToolDefinition): readonly string[];
  /** The same, by a tool's canonical name (`Pager.WhoAmI`); undefined for a name of no tool. */
  needsOf(name: string): readonly string[] | undefined;
  /** The scopes the tools `admits` lets through can use (a URL's view): `supported`, narrowed. */
  supportedBy(admits: (tool: AnyToolDefinition) => boolean): string[];
}

/** The rules over `tools`, the server's own selection: one scope per toolkit, one for writes. */
export function scopeRules(tools: readonly AnyToolDefinition[]): ScopeRules {
  const toolkitOf = new Map(
    Object.entries(TOOLKITS).flatMap(([id, kit]) => kit.tools.map((tool) => [tool.name, id] as const)),
  );
  const needs = (tool: AnyToolDefinition) => [
    toolkitOf.get(tool.name) ?? "",
    ...(tool.hints.readOnly ? [] : [WRITE_SCOPE]),
  ];
  const byName = new Map(tools.map((tool) => [tool.name, needs(tool)]));
  const supportedBy = (admits: (tool: AnyToolDefinition) => boolean) => {
    const admitted = tools.filter(admits);
    const used = new Set(admitted.flatMap(needs));
    return [...Object.keys(TOOLKITS), WRITE_SCOPE].filter((scope) => used.has(scope));
  };
  return { supported: supportedBy(() => true), needs, needsOf: (name) => byName.get(name), supportedBy };
}
