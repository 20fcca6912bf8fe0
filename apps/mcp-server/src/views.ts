import type { AnyToolDefinition } from "@toolkits/core";
import type { CatalogMode, ToolRegistry } from "@toolkits/core/mcp";

/**
 * Which of the server's tools one request may see and call: the server's own selection (its
 * flags), narrowed by what the request carries (a connector URL's selection, the token's scopes).
 * A view only ever narrows; it can never add a tool the server does not serve.
 */
export interface View {
  /** Identifies what the view admits: equal ids admit the same tools, and share one registry. */
  readonly id: string;
  /** Whether the view admits `tool` (a tool the server serves). */
  admits(tool: AnyToolDefinition): boolean;
  /** The catalogue mode, when the view sets one (e.g. `search`); else the server's own. */
  readonly catalog?: CatalogMode;
}

/** The server's own selection, as its flags made it: every tool it serves. */
export const WHOLE: View = { id: "", admits: () => true };

/** A view admitting what every one of `views` admits; the last catalogue mode set wins. */
export function within(...views: readonly View[]): View {
  const narrowing = views.filter((view) => view.id !== "");
  if (narrowing.length <= 1) return narrowing[0] ?? WHOLE;
  return {
    id: narrowing.map((view) => view.id).join("&"),
    admits: (tool) => narrowing.every((view) => view.admits(tool)),
    catalog: narrowing.reduce<CatalogMode | undefined>((mode, view) => view.catalog ?? mode, undefined),
  };
}

/**
 * The registry of each view over `tools` (the server's own selection), built by `build` on first
 * use and kept: a registry prepares its `tools/list` answer once, and there are few distinct views.
 */
export function registries(
  tools: readonly AnyToolDefinition[],
  build: (tools: readonly AnyToolDefinition[], catalog?: CatalogMode) => ToolRegistry,
): (view: View) => ToolRegistry {
  const built = new Map<string, ToolRegistry>();
  return (view) => {
    let registry = built.get(view.id);
    if (!registry) {
      registry = build(view.id === "" ? tools : tools.filter(view.admits), view.catalog);
      built.set(view.id, registry);
    }
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
