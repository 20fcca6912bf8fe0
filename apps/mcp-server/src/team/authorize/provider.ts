import type { Logger } from "@toolkits/core";
import type { Configuration, KoaContextWithOIDC, Provider } from "oidc-provider";
import { GRANT_CLAIM, within } from "../../http/auth/builtin.js";
import { SECURITY_HEADERS } from "../../web/respond.js";
import { messagePage } from "../../web/templates.js";
import type { TeamStore } from "../store/index.js";
import { grantClaim, storeAdapter } from "./adapter.js";
import { clientPolicy } from "./clients.js";
import type { ServerKeys } from "./keys.js";

/** Where the authorization server's endpoints live, below the server's public URL. */
export const AS_PATH = "/oauth";
/** Its interaction pages (sign-in and consent): `/oauth/interaction/<uid>`. */
export const INTERACTION_PATH = `${AS_PATH}/interaction`;

/** Refresh tokens live this long unused, in seconds (30 days); each use rotates to a new one. */
const REFRESH_TOKEN_TTL_S = 30 * 24 * 3_600;
/** A grant (a person's consent to a client, and what it issued) lives at most this long, in seconds. */
const GRANT_TTL_S = 365 * 24 * 3_600;
/** A browser's sign-in here lasts this long, in seconds (12 hours, as a /connect session). */
const SESSION_TTL_S = 12 * 3_600;
/** Time to sign in and consent, in seconds (10 minutes). */
const INTERACTION_TTL_S = 600;

/** Why a request naming `resource` more than once is refused: a token here is for one MCP URL. */
export const ONE_RESOURCE =
  "Name one resource: a token of this server is for one MCP URL (or connector URL).";

/** What the provider is built from. */
export interface ProviderSettings {
  /** The issuer: the public URL without a trailing slash. */
  issuer: string;
  /** The one resource tokens are for: the MCP URL. */
  resource: string;
  /** The scopes a token may hold (see scopes.ts). */
  scopes: readonly string[];
  keys: ServerKeys;
  store: TeamStore;
  /** Hosts whose client metadata documents may be on special-use addresses. */
  privateHosts: readonly string[];
  /** Whether the public URL is https: cookies then get `Secure` and the `__Host-`/`__Secure-` prefixes. */
  secure: boolean;
  /** How long access tokens live, in seconds (`--access-token-ttl`). */
  accessTokenTtlS: number;
  /** How long a rotated refresh token may be presented again, in seconds (`--refresh-grace`). */
  refreshGraceS: number;
  logger: Logger;
}

/** The library, loaded once before the server listens. */
export interface ProviderModule {
  oidc: typeof import("oidc-provider");
  /** Its fetch for outside resources: SSRF guard, 2.5 s, `fetch` from the configuration. */
  fetchRequest: (provider: Provider, url: string, init: RequestInit) => Promise<Response>;
}

/**
 * oidc-provider set up as the authorization server of one MCP URL (see the README's "Connect from
 * claude.ai, ChatGPT, VS Code, Cursor and Claude Code"): code flow with PKCE (S256) only, RFC 8707
 * resource-bound JWT access tokens (`at+jwt`, naming their grant, which the front door checks on
 * every request), refresh tokens rotated on every use (presented again within the grace, a sibling;
 * reused after it, the grant is revoked), RFC 7009 revocation, RFC 9207 `iss`, clients by metadata document
 * (CIMD) or dynamic registration, state in the team store. Its notices go to the logger, not the console.
 */
export const createProvider = {
  /** Loads the library (its start-up notices logged). */
  load: (logger: Logger): Promise<ProviderModule> =>
    quietly(logger, async () => {
      const [oidc, helper] = await Promise.all([
        import("oidc-provider"),
        import("oidc-provider/lib/helpers/fetch_request.js"),
      ]);
      return { oidc, fetchRequest: helper.default };
    }),
  /** The provider for `settings`. */
  build(module: ProviderModule, settings: ProviderSettings): Provider {
    const provider = quietly(
      settings.logger,
      () => new module.oidc.Provider(settings.issuer, configuration(module.oidc, settings)),
    );
    // Behind TLS the node request is plain http: Koa learns the scheme from X-Forwarded-Proto (set by the caller).
    provider.proxy = true;
    return provider;
  },
  /** Fetches as `provider` fetches client metadata documents (the guard, the allow-list, 2.5 s). */
  guardedFetch: (module: ProviderModule, provider: Provider) => (url: string, init: RequestInit) =>
    module.fetchRequest(provider, url, { ...init }),
};

/** The whole configuration: what is on (`features`), how tokens and clients go, where state lives. */
function configuration(oidc: ProviderModule["oidc"], settings: ProviderSettings): Configuration {
  const clients = clientPolicy(
    settings.privateHosts,
    (message) => new oidc.errors.InvalidClientMetadata(message),
  );
  const cookie = { httpOnly: true, sameSite: "lax" as const, signed: true };
  return {
    adapter: storeAdapter(settings.store, {
      invalidGrant: (message) => new oidc.errors.InvalidGrant(message),
      refreshGraceMs: settings.refreshGraceS * 1000,
    }),
    clients: [],
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    jwks: { keys: settings.keys.signing },
    cookies: {
      keys: settings.keys.cookies,
      names: cookieNames(settings.secure),
      long: cookie,
      short: cookie,
    },
    features: features(oidc, settings),
    // `none` for public clients (claude.ai uses a metadata document only when it is offered); no
    // private_key_jwt, so ChatGPT, which offers `none` too, takes `none`.
    clientAuthMethods: ["none", "client_secret_basic", "client_secret_post"],
    clientDefaults: {
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      id_token_signed_response_alg: "RS256",
    },
    clientBasedCORS: () => false,
    extraClientMetadata: clients.extraClientMetadata,
    fetch: clients.fetch,
    responseTypes: ["code"],
    scopes: ["openid"],
    pkce: { required: () => true },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    // Asked before the library consumes the token: a refresh for a resource the grant lacks is
    // refused here, while the token stays usable (the library would check only after rotating it).
    rotateRefreshToken: (ctx) => {
      const asked = ctx.oidc.params?.resource;
      const token = ctx.oidc.entities.RefreshToken;
      if (typeof asked === "string" && token && !token.resourceIndicators.has(asked))
        throw new oidc.errors.InvalidTarget("the refresh token was not granted for this resource");
      return true;
    },
    extraTokenClaims: (_ctx, token) =>
      "grantId" in token && token.grantId ? { [GRANT_CLAIM]: grantClaim(token.grantId) } : undefined,
    expiresWithSession: async () => false,
    // Consent is per person, client, redirect URI and scopes (consent.ts), given in this very
    // authorization: a grant is never reused because the browser's session knows the client.
    loadExistingGrant: async (ctx) => {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    interactions: { url: async (_ctx, interaction) => `${INTERACTION_PATH}/${interaction.uid}` },
    routes: ROUTES,
    ttl: { ...TTL, AccessToken: settings.accessTokenTtlS },
    renderError: async (ctx: KoaContextWithOIDC, out) => {
      ctx.set({ ...SECURITY_HEADERS });
      ctx.type = "html";
      ctx.body = errorPage(out);
    },
  };
}

/** What the server does: code flow, registration, metadata documents, revocation, one resource. */
function features(oidc: ProviderModule["oidc"], settings: ProviderSettings): Configuration["features"] {
  const { resource, scopes } = settings;
  return {
    devInteractions: { enabled: false },
    userinfo: { enabled: false },
    rpInitiatedLogout: { enabled: false },
    pushedAuthorizationRequests: { enabled: false },
    // Access tokens are bearer tokens: the front door checks no proof of possession.
    dPoP: { enabled: false },
    revocation: {
      enabled: true,
      allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId,
    },
    registration: { enabled: true, issueRegistrationAccessToken: false },
    rpMetadataChoices: { enabled: true },
    clientIdMetadataDocument: {
      enabled: true,
      ack: "draft-02",
      allowFetch: async () => true,
      cacheDuration: { min: 60, max: 24 * 3_600 },
    },
    resourceIndicators: {
      enabled: true,
      defaultResource: async () => resource,
      useGrantedResource: async () => true,
      getResourceServerInfo: async (ctx, indicator) => {
        if (Array.isArray(ctx.oidc.params?.resource)) throw new oidc.errors.InvalidTarget(ONE_RESOURCE);
        if (!servedResource(indicator, resource)) throw new oidc.errors.InvalidTarget();
        return {
          scope: scopes.join(" "),
          audience: indicator,
          accessTokenTTL: settings.accessTokenTtlS,
          accessTokenFormat: "jwt",
          jwt: { sign: { alg: "RS256" } },
        };
      },
    },
  };
}

/**
 * Whether a client may ask for a token for `indicator`: the MCP URL, or a connector URL beneath it
 * (whose protected-resource metadata names itself), written as the URL parser would write it (no
 * dot segments, query or fragment), so the audience is exactly the path the token is served at.
 */
function servedResource(indicator: string, resource: string): boolean {
  if (!within(indicator, resource)) return false;
  // Beneath an https or http URL, so it parses.
  const url = new URL(indicator);
  return url.href === indicator && !url.search && !url.hash;
}

const ROUTES = {
  authorization: `${AS_PATH}/authorize`,
  token: `${AS_PATH}/token`,
  revocation: `${AS_PATH}/revoke`,
  registration: `${AS_PATH}/register`,
  jwks: `${AS_PATH}/jwks`,
  end_session: `${AS_PATH}/end-session`,
};

/** Lifetimes, in seconds. */
const TTL = {
  AuthorizationCode: 60,
  RefreshToken: REFRESH_TOKEN_TTL_S,
  Grant: GRANT_TTL_S,
  Session: SESSION_TTL_S,
  Interaction: INTERACTION_TTL_S,
  IdToken: 300,
};

/** The provider's cookie names: `__Host-` (path /) and `__Secure-` (path-bound) prefixes over https. */
function cookieNames(secure: boolean) {
  const host = secure ? "__Host-" : "";
  const path = secure ? "__Secure-" : "";
  return {
    session: `${host}toolkits_as_session`,
    interaction: `${path}toolkits_as_interaction`,
    resume: `${path}toolkits_as_resume`,
  };
}

/** oidc-provider's error page, for errors it cannot send back to a client (an unknown redirect URI). */
const errorPage = (out: { error: string; error_description?: string }): string =>
  messagePage(
    "Authorization refused",
    `${out.error}: ${out.error_description ?? ""}`,
    "Nothing was authorized. Go back to your client and try connecting again.",
  ).markup;

/**
 * Runs `make` with the console's warnings and notices (oidc-provider writes its own there: the
 * Node version it prefers, experimental features, defaults) sent to `logger` instead, so every
 * line the server writes stays one JSON log line. A promise keeps them redirected until it settles.
 */
function quietly<T>(logger: Logger, make: () => T): T {
  const { warn, info } = console;
  const restore = () => Object.assign(console, { warn, info });
  const text = (args: unknown[]) => `oidc-provider: ${args.join(" ").replace(/^oidc-provider \w+: /, "")}`;
  console.warn = (...args: unknown[]) => logger.warn(text(args));
  console.info = (...args: unknown[]) => logger.debug(text(args));
  try {
    const made = make();
    if (made instanceof Promise) return made.finally(restore) as T;
    restore();
    return made;
  } catch (error) {
    restore();
    throw error;
  }
}
