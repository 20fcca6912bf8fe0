import type { AnyToolDefinition, Toolkit } from "@toolkits/core";
import { providerOfToolkit } from "../credentials/choice.js";
import { type AccountChoice, isLabel, LABEL_FORM, NO_CHOICE } from "../credentials/labels.js";
import type { ProviderId } from "../credentials/providers.js";
import { toolsetOf } from "../toolkits.js";
import type { View } from "../views.js";

/**
 * A connector URL's selection: what follows `/mcp/`, in parts separated by `/`, each at most once,
 * in any order:
 *
 * - toolkits: `pager`, `pager+sheets`, `marketing:segments,broadcasts` (a toolkit narrowed to some
 *   of its toolsets), each optionally with the label of the account its tools act as:
 *   `pager@eu+sheets@work`, `marketing@us:segments,broadcasts` (`<toolkit>[@<label>][:<toolset>,…]`);
 * - `readonly`: only the tools that change nothing;
 * - `search`: the search catalogue (`search_tools` and `call_tool`) over what the rest selects.
 */
export interface Selection {
  /** The toolkits named, each with the toolsets named (none: the whole toolkit). */
  toolkits: ReadonlyMap<string, readonly string[]>;
  /** The account label named for each toolkit that names one. */
  accounts: ReadonlyMap<string, string>;
  readOnly: boolean;
  search: boolean;
}

/** A selection that is malformed, or names what the server does not serve: answered 404 with its message. */
export class SelectionError extends Error {
  override name = "SelectionError";
}

/** The form of a connector URL's path, for messages and docs. */
export const CONNECTOR_FORM = "/mcp/<toolkit>[@<account>][:<toolset>,…][+<toolkit>…][/readonly][/search]";

const READ_ONLY = "readonly";
const SEARCH = "search";
const NAME = /^[a-z][a-z0-9-]*$/;

/**
 * The selection of `path`, the part of a connector URL after `/mcp/` (percent-encoding allowed).
 * @throws SelectionError naming the part that is empty, repeated or malformed.
 */
export function parseSelection(path: string): Selection {
  const toolkits = new Map<string, string[]>();
  const accounts = new Map<string, string>();
  const selection = { toolkits, accounts, readOnly: false, search: false };
  const seen = new Set<string>();
  for (const part of path.split("/").map(decoded)) {
    const kind = part === READ_ONLY || part === SEARCH ? part : "toolkits";
    if (seen.has(kind)) throw new SelectionError(`${quote(part)} repeats the ${kind} part.`);
    seen.add(kind);
    if (part === READ_ONLY) selection.readOnly = true;
    else if (part === SEARCH) selection.search = true;
    else for (const element of part.split("+")) addToolkit(selection, element);
  }
  return selection;
}

/**
 * The accounts the connector URL path `path` (after `/mcp/`) names, by the provider each toolkit
 * acts as (`pager@eu+sheets` → `{ pager: "eu" }`); none for a path naming none.
 * @throws SelectionError as `parseSelection` does, or for a label on a toolkit acting as no account.
 */
export function accountsNamed(path: string, toolkits: readonly Toolkit[]): AccountChoice {
  const providers = new Map(toolkits.map((kit) => [kit.id, providerOfToolkit(kit)]));
  return accountChoice(parseSelection(path), providers) ?? NO_CHOICE;
}

function addToolkit(
  selection: { toolkits: Map<string, string[]>; accounts: Map<string, string> },
  element: string,
): void {
  const [head = "", sets, ...extra] = element.split(":");
  const [id = "", label, ...more] = head.split("@");
  const toolsets = sets === undefined ? [] : sets.split(",");
  if (!NAME.test(id) || extra.length || more.length || toolsets.some((set) => !NAME.test(set)))
    throw new SelectionError(
      `${quote(element)} is not a toolkit, a toolkit@account, a toolkit:toolset,… list, readonly or search.`,
    );
  if (label !== undefined && !isLabel(label))
    throw new SelectionError(`${quote(label)} in ${quote(element)} is not an account label (${LABEL_FORM}).`);
  if (selection.toolkits.has(id)) throw new SelectionError(`${quote(id)} is named twice.`);
  selection.toolkits.set(id, toolsets);
  if (label !== undefined) selection.accounts.set(id, label);
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
  const providers = new Map(toolkits.map((kit) => [kit.id, providerOfToolkit(kit)]));
  return {
    viewOf(path) {
      const selection = parseSelection(path);
      checkServed(selection, served);
      const view = selectionView(selection, served, accountChoice(selection, providers));
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

/**
 * The accounts `selection` names, by the provider each toolkit acts as.
 * @throws SelectionError for a label on a toolkit that acts as no account, or two labels for one provider.
 */
function accountChoice(
  selection: Selection,
  providers: ReadonlyMap<string, ProviderId | undefined>,
): AccountChoice | undefined {
  if (!selection.accounts.size) return undefined;
  const choice: Partial<Record<ProviderId, string>> = {};
  for (const [id, label] of selection.accounts) {
    const provider = providers.get(id);
    if (!provider) throw new SelectionError(`${quote(id)} acts as no account: it takes no @${label}.`);
    if (choice[provider] !== undefined && choice[provider] !== label)
      throw new SelectionError(`${quote(id)} names another account of the one ${provider} connection.`);
    choice[provider] = label;
  }
  return choice;
}

/**
 * The view admitting what `selection` selects, acting as `accounts`, with an id that is the same
 * for every spelling of it.
 */
function selectionView(
  selection: Selection,
  served: readonly Served[],
  accounts: AccountChoice | undefined,
): View {
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
    accounts,
  };
}

/**
 * The selection in one spelling: toolkits in the server's order, each with its account label,
 * toolsets sorted, then `readonly`, then `search` (`marketing@us:broadcasts,segments/readonly` for
 * any order of the same parts).
 */
function canonicalSelection(selection: Selection, served: readonly { toolkit: string }[]): string {
  const order = unique(served.map((entry) => entry.toolkit));
  const kits = [...selection.toolkits]
    .sort(([a], [b]) => order.indexOf(a) - order.indexOf(b))
    .map(([id, sets]) => {
      const label = selection.accounts.get(id);
      const named = label === undefined ? id : `${id}@${label}`;
      return sets.length ? `${named}:${[...new Set(sets)].sort().join(",")}` : named;
    });
  return [kits.join("+"), selection.readOnly && READ_ONLY, selection.search && SEARCH]
    .filter(Boolean)
    .join("/");
}

const unique = (items: readonly string[]): string[] => [...new Set(items)];
