import type { AnyToolDefinition, Toolkit } from "@toolkits/core";
import { toolsetOf } from "../toolkits.js";
import type { View } from "../views.js";

/**
 * A connector URL's selection: what follows `/mcp/`, in parts separated by `/`, each at most once,
 * in any order:
 *
 * - toolkits: `pager`, `pager+sheets`, `marketing:segments,broadcasts` (a toolkit narrowed to some
 *   of its toolsets);
 * - `readonly`: only the tools that change nothing;
 * - `search`: the search catalogue (`search_tools` and `call_tool`) over what the rest selects.
 */
export interface Selection {
  /** The toolkits named, each with the toolsets named (none: the whole toolkit). */
  toolkits: ReadonlyMap<string, readonly string[]>;
  readOnly: boolean;
  search: boolean;
}

/** A selection that is malformed, or names what the server does not serve: answered 404 with its message. */
export class SelectionError extends Error {
  override name = "SelectionError";
}

/** The form of a connector URL's path, for messages and docs. */
export const CONNECTOR_FORM = "/mcp/<toolkit>[:<toolset>,…][+<toolkit>…][/readonly][/search]";

const READ_ONLY = "readonly";
const SEARCH = "search";
const NAME = /^[a-z][a-z0-9-]*$/;

/**
 * The selection of `path`, the part of a connector URL after `/mcp/` (percent-encoding allowed).
 * @throws SelectionError naming the part that is empty, repeated or malformed.
 */
export function parseSelection(path: string): Selection {
  const toolkits = new Map<string, string[]>();
  const selection = { toolkits, readOnly: false, search: false };
  const seen = new Set<string>();
  for (const part of path.split("/").map(decoded)) {
    const kind = part === READ_ONLY || part === SEARCH ? part : "toolkits";
    if (seen.has(kind)) throw new SelectionError(`${quote(part)} repeats the ${kind} part.`);
    seen.add(kind);
    if (part === READ_ONLY) selection.readOnly = true;
    else if (part === SEARCH) selection.search = true;
    else for (const element of part.split("+")) addToolkit(toolkits, element);
  }
  return selection;
}

function addToolkit(toolkits: Map<string, string[]>, element: string): void {
  const [id = "", sets, ...extra] = element.split(":");
  const toolsets = sets === undefined ? [] : sets.split(",");
  if (!NAME.test(id) || extra.length || toolsets.some((set) => !NAME.test(set)))
    throw new SelectionError(
      `${quote(element)} is not a toolkit, a toolkit:toolset,… list, readonly or search.`,
    );
  if (toolkits.has(id)) throw new SelectionError(`${quote(id)} is named twice.`);
  toolkits.set(id, toolsets);
}

function decoded(part: string): string {
  if (!part) throw new SelectionError("A connector URL has no empty part (no // and no trailing /).");
  try {
    return decodeURIComponent(part);
  } catch {
    throw new SelectionError(`${quote(part)} is not valid percent-encoding.`);
  }
}

const quote = (text: string) => `“${text}”`;

/** Where each tool the server serves belongs: its toolkit and toolset. */
interface Served {
  tool: AnyToolDefinition;
  toolkit: string;
  toolset: string;
}

/**
 * The selection's rule over what the server serves: a connector URL narrows the server's own
 * selection (its flags) and never widens it. Pure: the server builds one per request from its path.
 */
export interface Connectors {
  /**
   * The view of the selection in `path` (after `/mcp/`).
   * @throws SelectionError for a malformed selection, a toolkit or toolset the server does not
   *   serve, or a selection leaving no tool; its message says what this server serves instead.
   */
  viewOf(path: string): View;
}

/** Connector URLs over `tools`, the server's own selection from `toolkits`. */
export function connectors(toolkits: readonly Toolkit[], tools: readonly AnyToolDefinition[]): Connectors {
  const served = servedTools(toolkits, tools);
  return {
    viewOf(path) {
      const selection = parseSelection(path);
      checkServed(selection, served);
      const view = selectionView(selection, served);
      if (!tools.some(view.admits))
        throw new SelectionError(`/mcp/${path} leaves no tool: this server serves none of them.`);
      return view;
    },
  };
}

function servedTools(toolkits: readonly Toolkit[], tools: readonly AnyToolDefinition[]): Served[] {
  const serving = new Set(tools);
  return toolkits.flatMap((kit) =>
    kit.tools
      .filter((tool) => serving.has(tool))
      .map((tool) => ({ tool, toolkit: kit.id, toolset: toolsetOf(tool, kit) })),
  );
}

/** @throws SelectionError for a toolkit or toolset none of whose tools the server serves. */
function checkServed(selection: Selection, served: readonly Served[]): void {
  const kits = unique(served.map((entry) => entry.toolkit));
  for (const [id, toolsets] of selection.toolkits) {
    if (!kits.includes(id))
      throw new SelectionError(`This server serves no toolkit ${quote(id)}; it serves ${kits.join(", ")}.`);
    const sets = unique(served.filter((entry) => entry.toolkit === id).map((entry) => entry.toolset));
    const unknown = toolsets.find((set) => !sets.includes(set));
    if (unknown)
      throw new SelectionError(
        `This server serves no toolset ${quote(unknown)} of ${id}; it serves ${sets.join(", ")}.`,
      );
  }
}

/** The view admitting what `selection` selects, with an id that is the same for every spelling of it. */
function selectionView(selection: Selection, served: readonly Served[]): View {
  const wanted = (entry: Served) => {
    const toolsets = selection.toolkits.get(entry.toolkit);
    if (selection.toolkits.size && !toolsets) return false;
    return !toolsets?.length || toolsets.includes(entry.toolset);
  };
  const names = new Set(
    served
      .filter(wanted)
      .filter((entry) => !selection.readOnly || entry.tool.hints.readOnly)
      .map((entry) => entry.tool.name),
  );
  return {
    id: `url:${canonicalSelection(selection, served)}`,
    admits: (tool) => names.has(tool.name),
    catalog: selection.search ? "search" : undefined,
  };
}

/**
 * The selection in one spelling: toolkits in the server's order, toolsets sorted, then `readonly`,
 * then `search` (`marketing:segments,broadcasts/readonly` for any order of the same parts).
 */
function canonicalSelection(selection: Selection, served: readonly { toolkit: string }[]): string {
  const order = unique(served.map((entry) => entry.toolkit));
  const kits = [...selection.toolkits]
    .sort(([a], [b]) => order.indexOf(a) - order.indexOf(b))
    .map(([id, sets]) => (sets.length ? `${id}:${[...new Set(sets)].sort().join(",")}` : id));
  return [kits.join("+"), selection.readOnly && READ_ONLY, selection.search && SEARCH]
    .filter(Boolean)
    .join("/");
}

const unique = (items: readonly string[]): string[] => [...new Set(items)];
