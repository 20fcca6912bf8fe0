import type { Toolkit } from "@toolkits/core";
import { serverNameFitting } from "../clients/fit.js";
import { SERVER_NAME } from "../clients/index.js";
import { providerOfToolkit } from "../credentials/choice.js";
import { PROVIDERS, type ProviderId } from "../credentials/providers.js";

/** A person's account labels at each provider, each provider's default first. */
export type AccountLabels = Readonly<Partial<Record<ProviderId, readonly string[]>>>;

/** A connector URL acting as one of the person's accounts, and the server name to add it under. */
export interface AccountUrl {
  /** Its path: `/mcp/pager@eu`. */
  path: string;
  /** What it serves, in words. */
  what: string;
  /** The server name for it, short enough for every client naming tools `<prefix><tool>` (Claude Code's 64). */
  name: string;
}

/**
 * The connector URLs to offer a person holding several accounts at a provider: one per account
 * for each toolkit acting as that provider (`/mcp/pager@eu`, `/mcp/pager@b`), so a client reaches
 * both through two connectors. Each is named `toolkits-<toolkit>-<label>`, cut to fit beside the
 * longest of the toolkit's tools (`toolNamesOf`, as clients see them). None for a provider with
 * one account: the plain URLs act as it.
 */
export function accountUrls(
  toolkits: readonly Toolkit[],
  labels: AccountLabels,
  toolNamesOf: (toolkit: string) => readonly string[],
): AccountUrl[] {
  return toolkits.flatMap((kit) => {
    const provider = providerOfToolkit(kit);
    const held = provider ? (labels[provider] ?? []) : [];
    if (!provider || held.length < 2) return [];
    const names = toolNamesOf(kit.id);
    return held.map((label, at) => ({
      path: `/mcp/${kit.id}@${label}`,
      what: `${kit.title} tools as your ${PROVIDERS[provider].title} account “${label}”${at === 0 ? " (the default)" : ""}`,
      name: serverNameFitting(`${SERVER_NAME}-${kit.id}-${label}`, names),
    }));
  });
}
