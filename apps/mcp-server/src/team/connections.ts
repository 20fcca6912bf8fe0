import { randomBytes } from "node:crypto";
import type { ConnectLink } from "@toolkits/core";
import { CONNECT_PATH } from "./paths.js";
import { hashKey, type TeamStore } from "./store/index.js";

/** The upstream accounts a person can connect: the OAuth providers and the marketing App API key. */
export const PROVIDER_IDS = ["pager", "google", "marketing"] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

/** What people know each provider as, for pages and messages. */
export const PROVIDER_TITLES: Readonly<Record<ProviderId, string>> = {
  pager: "PagerDuty",
  google: "Google",
  marketing: "Customer.io App API",
};

export const isProviderId = (value: string): value is ProviderId =>
  (PROVIDER_IDS as readonly string[]).includes(value);

/** One person's connected upstream account, as stored (sealed) in the team store. */
export interface Connection {
  provider: ProviderId;
  /** Epoch milliseconds. */
  connectedAt: number;
  /** Who the upstream says this is, for pages ("alice@example.com"); never a credential. */
  account?: string;
  /** OAuth providers: the access token, its refresh token and expiry (epoch milliseconds). */
  accessToken?: string;
  refreshToken?: string;
  expiresAt?: number;
  scopes?: string[];
  tokenType?: string;
  /** The authorization server that issued the tokens, so a refresh goes back to it. */
  server?: { issuer: string; token_endpoint: string; revocation_endpoint?: string };
  /** The OAuth client the tokens belong to; its secret is read from the environment, never stored. */
  clientId?: string;
  /** Marketing: the person's App API key and its region. */
  apiKey?: string;
  region?: "us" | "eu";
}

/** Who a connect link was made for. */
export interface LinkOwner {
  principal: string;
  provider: ProviderId;
}

/** How long a connect link works, in milliseconds (10 minutes). */
export const CONNECT_LINK_TTL_MS = 10 * 60_000;

export { CONNECT_PATH } from "./paths.js";

/** People's connections and the single-use links that create them, in the team store. */
export interface Connections {
  get(principal: string, provider: ProviderId): Promise<Connection | undefined>;
  /** Every connection of `principal`, in PROVIDER_IDS order. */
  list(principal: string): Promise<Connection[]>;
  save(principal: string, connection: Connection): Promise<void>;
  /** Removes the connection and returns it, so the caller can revoke it upstream. */
  remove(principal: string, provider: ProviderId): Promise<Connection | undefined>;
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

const connectionKey = (principal: string, provider: ProviderId) =>
  `tk:conn:${hashKey(principal)}:${provider}`;
const codeKey = (code: string) => `tk:code:${hashKey(code)}`;

/**
 * Connections in `store`, with links on `publicUrl` (the server's externally visible base URL).
 * Every method rejects with StoreUnavailable when the store is out of reach.
 */
export function storedConnections(store: TeamStore, publicUrl: string): Connections {
  const base = publicUrl.replace(/\/+$/, "");
  return {
    get: (principal, provider) => store.get<Connection>(connectionKey(principal, provider)),
    async list(principal) {
      const found = await Promise.all(
        PROVIDER_IDS.map((provider) => store.get<Connection>(connectionKey(principal, provider))),
      );
      return found.filter((connection) => connection !== undefined);
    },
    save: (principal, connection) => store.set(connectionKey(principal, connection.provider), connection),
    async remove(principal, provider) {
      return store.take<Connection>(connectionKey(principal, provider));
    },
    async link(principal, provider) {
      const code = randomBytes(24).toString("base64url");
      await store.set(codeKey(code), { principal, provider } satisfies LinkOwner, CONNECT_LINK_TTL_MS);
      const title = PROVIDER_TITLES[provider];
      return {
        url: `${base}${CONNECT_PATH}/${provider}?code=${code}`,
        id: randomBytes(12).toString("base64url"),
        message: `Connect your ${title} account to continue: open the link, sign in, and allow access (the link works for 10 minutes).`,
      };
    },
    peek: (code) => store.get<LinkOwner>(codeKey(code)),
    redeem: (code) => store.take<LinkOwner>(codeKey(code)),
  };
}
