import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from "@modelcontextprotocol/ext-apps/server";
import type { ReadResourceResult, Resource, Tool } from "@modelcontextprotocol/server";
import { type AppView, VIEWS, viewHtml } from "@toolkits/apps";
import type { AnyToolDefinition } from "@toolkits/core";
import type { ResourceCatalog, ToolRegistry } from "@toolkits/core/mcp";
import type { AppsClient } from "./views.js";

// MCP Apps (io.modelcontextprotocol/ui, 2026-01-26) on a registry: which tools name which view,
// the app-only tools the views call, and the views as `ui://` resources. The negotiation itself is
// scope.ts `appsOf`; views.ts carries its outcome to the registry a request is served from.

/** The view showing each tool's results (model-visible and app-only), by canonical name. */
const VIEW_OF = new Map<string, AppView>(
  VIEWS.flatMap((view) =>
    [...view.tools, ...view.appTools.map((tool) => tool.name)].map((name) => [name, view]),
  ),
);
const APP_ONLY = new Set(VIEWS.flatMap((view) => view.appTools.map((tool) => tool.name)));

/** A view's `_meta.ui` on its resource: no origin of any kind (everything comes through tools). */
const VIEW_UI = {
  csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
  prefersBorder: true,
};

/**
 * The app-only tools a client taking views gets beside `tools`: those of each view that one of
 * `tools` names, so narrowing a request's tools narrows them too. Every one is read-only, so one an
 * `unknown` client shows its model does no harm; a tool that were not would be left out for it.
 */
export function appToolsFor(tools: readonly AnyToolDefinition[], apps: AppsClient): AnyToolDefinition[] {
  const served = new Set(tools.map((tool) => tool.name));
  return VIEWS.filter((view) => view.tools.some((name) => served.has(name)))
    .flatMap((view) => view.appTools)
    .filter((tool) => apps === "declared" || (tool.hints.readOnly && !tool.hints.destructive));
}

/**
 * `registry` as a client taking views sees it: each tool a view shows names it in `_meta.ui`
 * (visible to the model and the view; app-only tools to the view alone), with the legacy
 * `ui/resourceUri` key older hosts read (`RESOURCE_URI_META_KEY`), and the views those tools name
 * are its resources.
 */
export function withViews(registry: ToolRegistry): ToolRegistry {
  const listing = registry.listing.map((entry) => decorated(entry, registry));
  const uris = new Set(
    listing.flatMap((entry) => (entry._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri ?? []),
  );
  const views = VIEWS.filter((view) => uris.has(view.uri));
  return { ...registry, listing, resources: viewResources(views) };
}

function decorated(entry: Tool, registry: ToolRegistry): Tool {
  const name = registry.names.canonical(entry.name) ?? entry.name;
  const view = VIEW_OF.get(name);
  if (!view) return entry;
  const visibility = APP_ONLY.has(name) ? ["app"] : ["model", "app"];
  return {
    ...entry,
    _meta: { ...entry._meta, ui: { resourceUri: view.uri, visibility }, [RESOURCE_URI_META_KEY]: view.uri },
  };
}

/** Each view's HTML, read once (a few hundred kB each), when a client first asks for it. */
const html = new Map<string, Promise<string>>();

function viewResources(views: readonly AppView[]): ResourceCatalog {
  const listing: Resource[] = views.map((view) => ({
    uri: view.uri,
    name: view.id,
    title: view.title,
    description: view.description,
    mimeType: RESOURCE_MIME_TYPE,
    _meta: { ui: VIEW_UI },
  }));
  return {
    listing,
    async read(uri): Promise<ReadResourceResult | undefined> {
      const view = views.find((candidate) => candidate.uri === uri);
      if (!view) return undefined;
      let text = html.get(view.id);
      if (!text) {
        text = viewHtml(view);
        html.set(view.id, text);
        text.catch(() => html.delete(view.id));
      }
      return { contents: [{ uri, mimeType: RESOURCE_MIME_TYPE, text: await text, _meta: { ui: VIEW_UI } }] };
    },
  };
}
