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
 * both through two connectors. Each is named by `accountServerNames`. None for a provider with one
 * account: the plain URLs act as it.
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
    const names = accountServerNames(kit.id, held, toolNamesOf(kit.id));
    return held.map((label, at) => ({
      path: `/mcp/${kit.id}@${label}`,
      what: `${kit.title} tools as your ${PROVIDERS[provider].title} account “${label}”${at === 0 ? " (the default)" : ""}`,
      name: names[at] as string,
    }));
  });
}

/**
 * A server name for each of `labels` at `toolkit`, each fitting beside the longest of `toolNames`
 * as clients see them (`serverNameFitting`) and no two alike, or a client could add one only: the
 * longest form that fits, `toolkits-<toolkit>-<label>`, then `<toolkit>-<label>`, then `<label>`
 * (the marketing toolkit's long tool names leave ten characters); a name still taken gets `-2`, `-3`, ….
 */
export function accountServerNames(
  toolkit: string,
  labels: readonly string[],
  toolNames: readonly string[],
): string[] {
  const taken = new Set<string>();
  return labels.map((label) => {
    const forms = [`${SERVER_NAME}-${toolkit}-${label}`, `${toolkit}-${label}`, label];
    const fits = forms.find((form) => serverNameFitting(form, toolNames) === form);
    let name = serverNameFitting(fits ?? label, toolNames);
    for (let n = 2; taken.has(name); n++)
      name = `${serverNameFitting(
        label,
        toolNames.map((tool) => `${tool}-${n}`),
      )}-${n}`;
    taken.add(name);
    return name;
  });
}
