import type { Logger } from "@toolkits/core";
import type * as oauth from "openid-client";
import type { OAuthClients, OAuthProviderId } from "../../credentials/providers.js";
import { withoutTrailingSlash } from "../../urls.js";
import type { CookieSealer, StoreKeys } from "../../web/sealed-cookies.js";
import type { AuthorizationServer } from "../authorize/index.js";
import type { Connections } from "../connections.js";
import type { TeamStore } from "../store/index.js";
import { type SignInMethods, signInMethods } from "./methods.js";
import { type Pending, pendingSealer } from "./pending.js";

/** What the connect pages need from the server that serves them. */
export interface ConnectDeps {
  connections: Connections;
  /** Signed-in sessions and upstream authorizations under way live here (sealed), so any replica serves any step. */
  store: TeamStore;
  /**
   * The store's keys (`MCP_STORE_KEY`, `MCP_STORE_KEY_PREVIOUS`): a browser not yet signed in
   * carries its sign-in in a cookie sealed under keys derived from them, never in the store.
   */
  storeKeys: StoreKeys;
  /**
   * The server's externally visible base URL (`https://mcp.example.com`); redirect URIs are built
   * on it, and the session cookie is `Secure` exactly when it is https (whatever a proxy in front
   * says), so it must be the address people's browsers use.
   */
  publicUrl: string;
  /** The team's OpenID Connect issuer (`MCP_OAUTH_ISSUER`), where browsers sign in when set. */
  issuer?: string;
  /** This server's client at `issuer` (`MCP_CONNECT_CLIENT_ID`, `_SECRET`). */
  connectClient: { id?: string; secret?: string };
  /** This deployment's OAuth clients at the upstream providers. */
  oauthClients: OAuthClients;
  /** The toolkits' settings, as the host reads them (`MARKETING_API_URL` for the key check). */
  settings(name: string): string | undefined;
  logger: Logger;
  /** Sends the marketing key check (openid-client uses its own fetch). */
  fetch: typeof fetch;
  /**
   * The principal (`token:<name>`) of a named static bearer token (`MCP_HTTP_BEARER_TOKENS`),
   * compared in constant time; `undefined` for an unknown token. Set when there are named tokens:
   * people calling with one sign in here with it, next to the OpenID Connect issuer if there is one.
   */
  identifyToken?: (token: string) => string | undefined;
  /** The scopes the composed toolkits declare for a provider (`PROVIDERS[p].scopes(tools)`). */
  scopes: (provider: OAuthProviderId) => string[];
}

/**
 * What the connect pages take of the built-in authorization server, when it runs: the clients each
 * person authorised there (listed with a revoke button), and ending its own session of a browser on
 * signing out (resolving to the Set-Cookie lines clearing its cookies; @throws StoreUnavailable).
 */
export type ConnectAuthorization = Pick<AuthorizationServer, "clients" | "endSession">;

/** The deps with what every handler derives from them. */
export interface ConnectContext extends ConnectDeps {
  /** `publicUrl` without a trailing slash. */
  base: string;
  /** Whether cookies get `Secure` (the public URL is https). */
  secureCookies: boolean;
  /** How browsers sign in here. */
  methods: SignInMethods;
  /** Seals what a browser carries before it is signed in. */
  cookies: CookieSealer<Pending>;
  /** With the built-in authorization server (the pages only: signing in needs nothing of it). */
  authorization?: ConnectAuthorization;
  /**
   * An OAuth configuration, made once per key and then reused (discovery costs a request); a
   * failure is not remembered, so the next request tries again.
   */
  configuration(key: string, make: () => Promise<oauth.Configuration>): Promise<oauth.Configuration>;
}

/** @throws Error naming the variable when a store key is not 32 bytes of base64. */
export function connectContext(deps: ConnectDeps): ConnectContext {
  const base = withoutTrailingSlash(deps.publicUrl);
  const configurations = new Map<string, Promise<oauth.Configuration>>();
  return {
    ...deps,
    base,
    secureCookies: base.startsWith("https:"),
    methods: signInMethods(deps),
    cookies: pendingSealer(deps.storeKeys),
    configuration(key, make) {
      let made = configurations.get(key);
      if (!made) {
        made = make();
        configurations.set(key, made);
        made.catch(() => configurations.delete(key));
      }
      return made;
    },
  };
}

export { principalHash } from "../store/hash.js";
