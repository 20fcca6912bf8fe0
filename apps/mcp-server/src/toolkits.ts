import type { AnyToolDefinition, Toolkit } from "@toolkits/core";
import { marketingToolkit } from "@toolkits/marketing";
import { pagerToolkit } from "@toolkits/pager";
import { sheetsToolkit } from "@toolkits/sheets";
import picomatch from "picomatch";
import type { ServerOptions } from "./options/index.js";

/** Every toolkit this server can compose, by id: the one list the CLI, the build and the docs read. */
export const TOOLKITS: Readonly<Record<string, Toolkit>> = {
  pager: pagerToolkit,
  sheets: sheetsToolkit,
  marketing: marketingToolkit,
};

/** The toolkits' ids, in composition order. */
export const TOOLKIT_IDS = Object.keys(TOOLKITS);

/** The area a tool belongs to; tools without one form a toolset named after their toolkit. */
export const toolsetOf = (tool: AnyToolDefinition, toolkit: Toolkit): string => tool.toolset ?? toolkit.id;

/**
 * The tools to register, filtered in this order: loaded toolkits, `--read-only` (write tools are
 * not registered at all), `--tools` or `--toolsets` (either admits a tool), `--exclude-tools` (wins).
 * Names match with `.` or `_` as the separator.
 * @throws Error for a tool name or toolset that does not exist, listing what does.
 */
export function selectTools(options: ServerOptions): { toolkits: Toolkit[]; tools: AnyToolDefinition[] } {
  const toolkits = options.toolkits
    .map((id) => TOOLKITS[id])
    .filter((kit): kit is Toolkit => kit !== undefined);
  const all = toolkits.flatMap((kit) => kit.tools.map((tool) => ({ tool, toolset: toolsetOf(tool, kit) })));
  assertKnown(
    "--tools",
    options.tools,
    all.map(({ tool }) => tool.name),
  );
  assertKnown(
    "--exclude-tools",
    options.excludeTools,
    all.map(({ tool }) => tool.name),
  );
  const toolsets = new Set(all.map(({ toolset }) => toolset));
  const unknownSets = options.toolsets.filter((set) => !toolsets.has(set));
  if (unknownSets.length) {
    throw new Error(
      `--toolsets: no toolset ${unknownSets.join(", ")}. Available: ${[...toolsets].sort().join(", ")}.`,
    );
  }
  const wanted = matcher(options.tools);
  const excluded = matcher(options.excludeTools);
  const filtering = options.tools.length > 0 || options.toolsets.length > 0;
  const tools = all
    .filter(({ tool }) => !options.readOnly || tool.hints.readOnly)
    .filter(({ tool, toolset }) => !filtering || wanted(tool.name) || options.toolsets.includes(toolset))
    .filter(({ tool }) => !excluded(tool.name))
    .map(({ tool }) => tool);
  return { toolkits, tools };
}

function matcher(patterns: string[]): (name: string) => boolean {
  if (!patterns.length) return () => false;
  const isMatch = picomatch(patterns.map(canonical));
  return (name) => isMatch(canonical(name));
}

/** `Pager_WhoAmI` and `Pager.WhoAmI` name the same tool. */
const canonical = (name: string): string => name.replace(/_/g, ".");

/** @throws Error for a name naming no tool, or a glob matching none, so a typo never serves nothing. */
function assertKnown(flag: string, patterns: string[], names: string[]): void {
  for (const pattern of patterns) {
    if (!picomatch.scan(pattern).isGlob) {
      if (names.some((name) => canonical(name) === canonical(pattern))) continue;
      throw new Error(`${flag}: no tool named ${pattern}. Run with --help, or list tools with tools/list.`);
    }
    if (!names.some(matcher([pattern]))) {
      throw new Error(
        `${flag}: ${pattern} matches no tool of the loaded toolkits (${[...new Set(names.map((name) => name.split(".")[0]))].join(", ")}).`,
      );
    }
  }
}
