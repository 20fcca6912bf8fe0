import type { Logger } from "@toolkits/core";
import type * as oauth from "openid-client";
import type { OAuthClients, OAuthProviderId } from "../../credentials/providers.js";
import type { Connections } from "../connections.js";
import { hashKey, type TeamStore } from "../store/index.js";

/** What the connect pages need from the server that serves them. */
export interface ConnectDeps {
  connections: Connections;
  /** Sessions, sign-in flows and CSRF tokens live here (sealed), so any replica serves any step. */
  store: TeamStore;
  /** The server's externally visible base URL (`https://mcp.example.com`); redirect URIs are built on it. */
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
   * compared in constant time; `undefined` for an unknown token. Offers the token sign-in form
   * when there is no OpenID Connect issuer.
   */
  identifyToken?: (token: string) => string | undefined;
  /** The scopes the composed toolkits declare for a provider (`PROVIDERS[p].scopes(tools)`). */
  scopes: (provider: OAuthProviderId) => string[];
}

/** The deps with what every handler derives from them. */
export interface ConnectContext extends ConnectDeps {
  /** `publicUrl` without a trailing slash. */
  base: string;
  /** Whether cookies get `Secure` (the public URL is https). */
  secureCookies: boolean;
  /**
   * An OAuth configuration, made once per key and then reused (discovery costs a request); a
   * failure is not remembered, so the next request tries again.
   */
  configuration(key: string, make: () => Promise<oauth.Configuration>): Promise<oauth.Configuration>;
}

export function connectContext(deps: ConnectDeps): ConnectContext {
  const base = deps.publicUrl.replace(/\/+$/, "");
  const configurations = new Map<string, Promise<oauth.Configuration>>();
  return {
    ...deps,
    base,
    secureCookies: base.startsWith("https:"),
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

/** A short, stable stand-in for a person in log lines: never the principal itself. */
export const principalHash = (principal: string): string => hashKey(principal).slice(0, 12);
