import type { AnyToolDefinition } from "@toolkits/core";
import type { CatalogMode, ToolRegistry } from "@toolkits/core/mcp";
import type { AccountChoice } from "./credentials/labels.js";

/**
 * Which of the server's tools one request may see and call: the server's own selection (its
 * flags), narrowed by what the request carries (a connector URL's selection, the token's scopes).
 * A view only ever narrows the server's tools; the one thing it adds, for a client taking MCP
 * Apps views (`apps`), is the read-only app-only tools of the views its admitted tools name.
 */
export interface View {
  /** Identifies what the view admits: equal ids admit the same tools, and share one registry. */
  readonly id: string;
  /** Whether the view admits `tool` (a tool the server serves). */
  admits(tool: AnyToolDefinition): boolean;
  /** The catalogue mode, when the view sets one (e.g. `search`); else the server's own. */
  readonly catalog?: CatalogMode;
  /**
   * How the request's client takes MCP Apps views, when it may take them (see scope.ts `appsOf`):
   * the listing then names each view in `_meta.ui` and adds the views' app-only tools. Unset: a
   * client known to take none, which sees the listing without either.
   */
  readonly apps?: AppsClient;
  /**
   * The accounts the view's calls act as, by provider (a connector URL's `pager@eu`); a provider it
   * does not name acts as the server's choice, else the default account. Part of the view's id.
   */
  readonly accounts?: AccountChoice;
}

/** A client that declared MCP Apps (`declared`), or one that may render them unannounced (`unknown`). */
export type AppsClient = "declared" | "unknown";

/** The server's own selection, as its flags made it: every tool it serves. */
export const WHOLE: View = { id: "", admits: () => true };

/** The view of a client taking views as `apps` says; WHOLE for one known to take none. */
export const appsView = (apps: AppsClient | undefined): View =>
  apps ? { id: `apps:${apps}`, admits: () => true, apps } : WHOLE;

/**
 * A view admitting what every one of `views` admits; the last catalogue mode and apps client set
 * win, and the accounts they name together (a later view's choice for a provider wins).
 */
export function within(...views: readonly View[]): View {
  const narrowing = views.filter((view) => view.id !== "");
  if (narrowing.length <= 1) return narrowing[0] ?? WHOLE;
  return {
    id: narrowing.map((view) => view.id).join("&"),
    admits: (tool) => narrowing.every((view) => view.admits(tool)),
    catalog: narrowing.reduce<CatalogMode | undefined>((mode, view) => view.catalog ?? mode, undefined),
    apps: narrowing.reduce<AppsClient | undefined>((apps, view) => view.apps ?? apps, undefined),
    accounts: accountsOf(narrowing),
  };
}

/** The accounts `views` name together, a later view's choice for a provider winning; undefined for none. */
function accountsOf(views: readonly View[]): AccountChoice | undefined {
  const named = views.flatMap((view) => (view.accounts ? [view.accounts] : []));
  return named.length ? Object.assign({}, ...named) : undefined;
}

/**
 * How many registries of narrowed views are kept: requests choose their views (a connector URL's
 * selection has thousands of spellings of different tool sets), so the least recently used goes.
 */
export const KEPT_VIEWS = 64;

/**
 * The registry of each view over `tools` (the server's own selection), built by `build` on first
 * use and kept: a registry prepares its `tools/list` answer once. The whole view's is kept for
 * good, the `KEPT_VIEWS` most recently used others until they are pushed out.
 */
export function registries(
  tools: readonly AnyToolDefinition[],
  build: (
    tools: readonly AnyToolDefinition[],
    catalog?: CatalogMode,
    apps?: AppsClient,
    accounts?: AccountChoice,
  ) => ToolRegistry,
): (view: View) => ToolRegistry {
  let whole: ToolRegistry | undefined;
  const built = new Map<string, ToolRegistry>();
  return (view) => {
    if (view.id === "") {
      whole ??= build(tools);
      return whole;
    }
    let registry = built.get(view.id);
    if (registry) built.delete(view.id);
    else registry = build(tools.filter(view.admits), view.catalog, view.apps, view.accounts);
    built.set(view.id, registry);
    if (built.size > KEPT_VIEWS) built.delete(built.keys().next().value as string);
    return registry;
  };
}

/**
 * The view of an access token's OAuth scopes (`--authorization-server builtin`): it admits a tool
 * when the token holds every scope the tool `needs`. Tokens with the same scopes share one view id.
 */
export function scopesView(
  scopes: readonly string[],
  needs: (tool: AnyToolDefinition) => readonly string[],
): View {
  const held = new Set(scopes);
  return {
    id: `scopes:${[...held].sort().join(" ")}`,
    admits: (tool) => needs(tool).every((scope) => held.has(scope)),
  };
}
