import type { AnyToolDefinition, Host, Toolkit } from "@toolkits/core";
import { createToolRegistry, type ToolRegistry } from "@toolkits/core/mcp";
import { namingAccounts } from "./answering.js";
import { appToolsFor, withViews } from "./apps.js";
import { prebuiltListing } from "./catalog.js";
import { type ChoosingHost, withChosenAccounts } from "./credentials/choice.js";
import { NO_CHOICE } from "./credentials/labels.js";
import { iconSet, withIcons } from "./icons/index.js";
import type { ServerOptions } from "./options/index.js";
import { registries, type View } from "./views.js";

/** What the server serves: the toolkits it composes, and its own selection of their tools. */
export interface Selected {
  toolkits: readonly Toolkit[];
  tools: readonly AnyToolDefinition[];
}

/** The options that shape a listing. */
export type ListingOptions = Pick<ServerOptions, "catalog" | "apps" | "toolNames">;

/**
 * The registry of each view of `selected.tools`, built once and kept (see `registries`): the one
 * every transport serves a request from, and the one the front page counts each URL's tools in.
 * Each tool carries its toolkit's icons, as URLs under `publicUrl` (HTTP) or as data (none: stdio);
 * a view of a client taking MCP Apps views (`--apps on`, a full catalogue) adds the views'
 * app-only tools and names each view in `_meta.ui`. `host` runs the calls, acting as the accounts
 * a view chooses (a connector URL's `pager@eu`) where it can choose them; who-am-I results say
 * which account answered (answering.ts).
 */
export function servedRegistries(
  selected: Selected,
  options: ListingOptions,
  host: Host | ChoosingHost,
  publicUrl?: string,
): (view: View) => ToolRegistry {
  const { toolkits, tools } = selected;
  const prebuilt = prebuiltListing();
  const mentionable = toolkits.flatMap((kit) => kit.tools.map((tool) => tool.name));
  const icons = iconSet(publicUrl);
  return registries(tools, (admitted, catalog, apps, accounts) => {
    const mode = catalog ?? options.catalog;
    // Views decorate tools as listed: the search catalogue lists none of them.
    const views = options.apps === "on" && mode === "full" ? apps : undefined;
    const served = views ? [...admitted, ...appToolsFor(admitted, views)] : admitted;
    const registry = withIcons(
      createToolRegistry(served, withChosenAccounts(host, accounts), {
        names: options.toolNames,
        catalog: mode,
        prebuilt,
        mentionable,
      }),
      icons,
      toolkits,
    );
    return namingAccounts(views ? withViews(registry) : registry, admitted, host, accounts ?? NO_CHOICE);
  });
}
