import { randomBytes } from "node:crypto";
import type { ConnectLink } from "@toolkits/core";
import type { Grant } from "../credentials/grant.js";
import { type OAuthClients, PROVIDER_IDS, PROVIDERS, type ProviderId } from "../credentials/providers.js";
import type { GrantStore } from "../credentials/store.js";
import { teamGrants } from "../credentials/team-grants.js";
import { CONNECT_PATH } from "./paths.js";
import { hashKey, type TeamStore } from "./store/index.js";

/** Who a connect link was made for. */
export interface LinkOwner {
  principal: string;
  provider: ProviderId;
}

/** How long a connect link works, in milliseconds (10 minutes). */
const CONNECT_LINK_TTL_MS = 10 * 60_000;

export { CONNECT_PATH } from "./paths.js";

/** People's connections (their grants) and the single-use links that create them, in the team store. */
export interface Connections {
  /** The grants of `principal`. */
  of(principal: string): GrantStore;
  /** Every grant of `principal`, in PROVIDER_IDS order. */
  list(principal: string): Promise<Grant[]>;
  /**
   * A link to `/connect/<provider>?code=…` with a new single-use code bound to `principal` and
   * `provider`, working for 10 minutes.
   */
  link(principal: string, provider: ProviderId): Promise<ConnectLink>;
  /** Who a code was made for, without using it up; `undefined` when unknown or expired. */
  peek(code: string): Promise<LinkOwner | undefined>;
  /** Uses a code up: of several concurrent callers at most one gets its owner. */
  redeem(code: string): Promise<LinkOwner | undefined>;
}

const codeKey = (code: string) => `tk:code:${hashKey(code)}`;

/**
 * Connections in `store`, with links on `publicUrl` (the server's externally visible base URL);
 * `clients` are this deployment's OAuth clients, whose secrets refresh and revoke the grants.
 * Every method rejects with StoreUnavailable when the store is out of reach.
 */
export function storedConnections(store: TeamStore, publicUrl: string, clients: OAuthClients): Connections {
  const base = publicUrl.replace(/\/+$/, "");
  const of = teamGrants(store, clients);
  return {
    of,
    async list(principal) {
      const grants = of(principal);
      const found = await Promise.all(PROVIDER_IDS.map((provider) => grants.get(provider)));
      return found.filter((grant) => grant !== undefined);
    },
    async link(principal, provider) {
      const code = randomBytes(24).toString("base64url");
      await store.set(codeKey(code), { principal, provider } satisfies LinkOwner, CONNECT_LINK_TTL_MS);
      return {
        url: `${base}${CONNECT_PATH}/${provider}?code=${code}`,
        id: randomBytes(12).toString("base64url"),
        message: `Connect your ${PROVIDERS[provider].title} account to continue: open the link, sign in, and allow access (the link works for 10 minutes).`,
      };
    },
    peek: (code) => store.get<LinkOwner>(codeKey(code)),
    redeem: (code) => store.take<LinkOwner>(codeKey(code)),
  };
}
