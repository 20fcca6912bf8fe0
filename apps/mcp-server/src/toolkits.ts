import type { AnyToolDefinition, Toolkit } from "@toolkits/core";
import { marketingToolkit } from "@toolkits/marketing";
import { pagerToolkit } from "@toolkits/pager";
import { sheetsToolkit } from "@toolkits/sheets";
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
export async function selectTools(
  options: ServerOptions,
): Promise<{ toolkits: Toolkit[]; tools: AnyToolDefinition[] }> {
  // The glob library loads only for a server given names or globs.
  const globs =
    options.tools.length || options.excludeTools.length ? (await import("picomatch")).default : none;
  const toolkits = options.toolkits
    .map((id) => TOOLKITS[id])
    .filter((kit): kit is Toolkit => kit !== undefined);
  const all = toolkits.flatMap((kit) => kit.tools.map((tool) => ({ tool, toolset: toolsetOf(tool, kit) })));
  const names = all.map(({ tool }) => tool.name);
  assertKnown(globs, "--tools", options.tools, names);
  assertKnown(globs, "--exclude-tools", options.excludeTools, names);
  const toolsets = new Set(all.map(({ toolset }) => toolset));
  const unknownSets = options.toolsets.filter((set) => !toolsets.has(set));
  if (unknownSets.length) {
    throw new Error(
      `--toolsets: no toolset ${unknownSets.join(", ")}. Available: ${[...toolsets].sort().join(", ")}.`,
    );
  }
  const wanted = matcher(globs, options.tools);
  const excluded = matcher(globs, options.excludeTools);
  const filtering = options.tools.length > 0 || options.toolsets.length > 0;
  const tools = all
    .filter(({ tool }) => !options.readOnly || tool.hints.readOnly)
    .filter(({ tool, toolset }) => !filtering || wanted(tool.name) || options.toolsets.includes(toolset))
    .filter(({ tool }) => !excluded(tool.name))
    .map(({ tool }) => tool);
  return { toolkits, tools };
}

type Globs = typeof import("picomatch");

/** Stands in for the glob library where there are no patterns to match. */
const none = (() => () => false) as unknown as Globs;

function matcher(globs: Globs, patterns: string[]): (name: string) => boolean {
  if (!patterns.length) return () => false;
  const isMatch = globs(patterns.map(canonical));
  return (name) => isMatch(canonical(name));
}

/** `Pager_WhoAmI` and `Pager.WhoAmI` name the same tool. */
const canonical = (name: string): string => name.replace(/_/g, ".");

/** @throws Error for a name naming no tool, or a glob matching none, so a typo never serves nothing. */
function assertKnown(globs: Globs, flag: string, patterns: string[], names: string[]): void {
  for (const pattern of patterns) {
    if (!globs.scan(pattern).isGlob) {
      if (names.some((name) => canonical(name) === canonical(pattern))) continue;
      throw new Error(`${flag}: no tool named ${pattern}. Run with --help, or list tools with tools/list.`);
    }
    if (!names.some(matcher(globs, [pattern]))) {
      throw new Error(
        `${flag}: ${pattern} matches no tool of the loaded toolkits (${[...new Set(names.map((name) => name.split(".")[0]))].join(", ")}).`,
      );
    }
  }
}
