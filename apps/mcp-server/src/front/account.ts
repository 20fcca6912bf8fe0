import type { AnyToolDefinition } from "@toolkits/core";
import type { AccountLabels } from "../connectors/accounts.js";
import { isProviderId, PROVIDER_IDS, type ProviderId } from "../credentials/providers.js";

/** One upstream account, as the front page shows it. */
export interface UpstreamConnection {
  provider: ProviderId;
  /** The name people know it by (`PagerDuty`). */
  title: string;
  connected: boolean;
  /** What is known of it: whose account, since when, where its credential comes from. */
  detail?: string;
  /** Per user: where to connect it (a link with a one-time code for the signed-in person). */
  connectUrl?: string;
  /** Per user: where its disconnect form posts, with the session's CSRF token. */
  disconnectAction?: string;
  /** Shared: the commands or settings that connect and disconnect it on this machine. */
  howTo?: string[];
}

/** The signed-in person of a per-user server, and their connections. */
export interface Account {
  /** What to call them: an email, a token's name. */
  who: string;
  /** The CSRF token their session's forms carry. */
  csrf: string;
  connections: UpstreamConnection[];
  /** Their accounts' labels at each provider connected, the default first. */
  labels: AccountLabels;
}

/**
 * The upstream accounts `tools` need, in PROVIDER_IDS order: each tool's OAuth provider, or the
 * marketing App API key for a tool whose only credential is a secret.
 */
export function providersOf(tools: readonly AnyToolDefinition[]): ProviderId[] {
  const needed = new Set(
    tools.map((tool) => tool.auth.oauth?.provider ?? (tool.auth.secret ? "marketing" : undefined)),
  );
  return PROVIDER_IDS.filter((provider) => needed.has(provider) && isProviderId(provider));
}
