import type { IncomingMessage, ServerResponse } from "node:http";
import type { AuthInfo } from "@modelcontextprotocol/server";
import type { AnyToolDefinition, Logger } from "@toolkits/core";
import type { Provider } from "oidc-provider";
import type { BuiltinIssuer } from "../../http/auth/builtin.js";
import { TokensUncheckable } from "../../http/auth/unavailable.js";
import { json, sendResponse } from "../../http/respond.js";
import { pathOf } from "../../pages.js";
import { withoutTrailingSlash } from "../../urls.js";
import { scopesView, type View } from "../../views.js";
import { cookieRequest, cookieValues, setCookie } from "../../web/cookies.js";
import { cookieSealer, type StoreKeys } from "../../web/sealed-cookies.js";
import type { Connections } from "../connections.js";
import { StoreUnavailable, type TeamStore } from "../store/index.js";
import { type AuthorisedClients, authorisedClients, revokeClient } from "./consent.js";
import { rememberDocumentFailures } from "./documents.js";
import { indexEarlierRecords } from "./indexes.js";
import { type ConsentCookie, interactions } from "./interaction.js";
import { type ServerKeys, serverKeys, storedKeys, verificationKeys } from "./keys.js";
import { logoCache } from "./logo.js";
import { AS_PATH, createProvider, INTERACTION_PATH, ONE_RESOURCE, type ProviderModule } from "./provider.js";
import { logAuthorizationRefusals } from "./refusal-events.js";
import { countProviderGrants, logProviderRefusals } from "./refusals.js";
import { registrationGate } from "./registration.js";
import { grantChecker, type RevalidationPolicy } from "./revalidate.js";
import { type ScopeRules, scopeRules } from "./scopes.js";
import { AUTHORIZE_PATH, authorizeGate } from "./strangers.js";

/** The well-known paths of the server's metadata (RFC 8414, and the OpenID alias clients also try). */
const WELL_KNOWN = new Set(["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"]);
/** An unknown `kid` reads the keys from the store again at most this often, in milliseconds. */
const KEY_RELOAD_MS = 5_000;

/** The built-in server's parts made before anything listens: its library and its keys. */
export interface Prepared {
  oidc: ProviderModule;
  keys: ServerKeys;
  store: TeamStore;
  logger: Logger;
  lifetimes: Lifetimes;
  /** Whether a grant an access token names is alive, checked again when due (see revalidate.ts). */
  alive(claim: string): Promise<boolean>;
}

/** How long tokens live, in seconds: `--access-token-ttl` and `--refresh-grace`. */
export interface Lifetimes {
  accessTokenTtlS: number;
  refreshGraceS: number;
}

/**
 * Loads the library and the keys (made on the first start), and indexes a store written before the
 * indexes (once), before anything listens; then gives
 * the front door's view of the server (`issuer`) and the server itself (`serve`), once the public
 * URL is known.
 * @throws StoreUnavailable when the store is out of reach.
 */
export async function prepare(
  store: TeamStore,
  logger: Logger,
  lifetimes: Lifetimes,
  revalidation: Omit<RevalidationPolicy, "logger">,
) {
  const [oidc, keys] = await Promise.all([
    createProvider.load(logger),
    serverKeys(store),
    indexEarlierRecords(store, logger),
  ]);
  const alive = grantChecker(store, { ...revalidation, logger });
  const prepared: Prepared = { oidc, keys, store, logger, lifetimes, alive };
  return {
    issuer: (publicUrl: string) => builtinIssuer(prepared, publicUrl),
    serve: (deps: AuthorizationDeps) => authorizationServer(prepared, deps),
  };
}

/** The front door's view of the built-in server on `publicUrl`: its issuer, audience and keys. */
function builtinIssuer(prepared: Prepared, publicUrl: string): BuiltinIssuer {
  const base = withoutTrailingSlash(publicUrl);
  let keys = verificationKeys(prepared.keys);
  let reloadedAt = 0;
  return {
    issuer: base,
    audience: `${base}/mcp`,
    grantAlive: async (claim) => {
      try {
        return await prepared.alive(claim);
      } catch (error) {
        if (error instanceof StoreUnavailable) throw new TokensUncheckable(error.message, 1);
        throw error;
      }
    },
    key: async (kid) => {
      if (keys.has(kid) || Date.now() - reloadedAt < KEY_RELOAD_MS) return keys.get(kid);
      reloadedAt = Date.now();
      const stored = await storedKeys(prepared.store).catch(() => undefined);
      if (stored) keys = verificationKeys(stored);
      return keys.get(kid);
    },
  };
}

/** The running authorization server, as the HTTP server and the /connect pages use it. */
export interface AuthorizationServer {
  /** Whether it answers `path`: `/oauth/…` and the two well-known metadata paths. */
  owns(path: string): boolean;
  serve(req: IncomingMessage, res: ServerResponse): Promise<void>;
  rules: ScopeRules;
  /** The view a verified token narrows its caller to: its scopes, for the server's own tokens. */
  viewOf(authInfo: AuthInfo): View | undefined;
  /** What people authorised, for /connect. */
  clients: AuthorisedClients;
  /**
   * Ends this server's own session of the browser `request` comes from (signing out at /connect
   * does, so the next person at that browser is asked who they are): its record in the store.
   * Resolves to the Set-Cookie lines clearing its cookies. @throws StoreUnavailable
   */
  endSession(request: Request): Promise<string[]>;
}

/** What the authorization server needs from the per-user parts around it. */
export interface AuthorizationDeps {
  publicUrl: string;
  tools: readonly AnyToolDefinition[];
  connections: Connections;
  storeKeys: StoreKeys;
  privateHosts: readonly string[];
  personOf(request: Request): Promise<string | undefined>;
  signIn(returnTo: string): Promise<Response>;
}

/** The authorization server of `deps.publicUrl`'s MCP URL (see provider.ts and interaction.ts). */
function authorizationServer(prepared: Prepared, deps: AuthorizationDeps): AuthorizationServer {
  const { store } = prepared;
  const base = withoutTrailingSlash(deps.publicUrl);
  const publicUrl = new URL(base);
  const secure = publicUrl.protocol === "https:";
  const rules = scopeRules(deps.tools);
  const resource = `${base}/mcp`;
  const provider = createProvider.build(prepared.oidc, {
    issuer: base,
    resource,
    scopes: rules.supported,
    keys: prepared.keys,
    store,
    privateHosts: deps.privateHosts,
    secure,
    ...prepared.lifetimes,
    logger: prepared.logger,
  });
  adjust(provider, rules.supported);
  rememberDocumentFailures(provider, prepared.oidc.oidc.errors);
  logProviderRefusals(provider, prepared.logger);
  countProviderGrants(provider);
  logAuthorizationRefusals(provider, prepared.logger);
  const interaction = interactions({
    provider,
    store,
    connections: deps.connections,
    personOf: deps.personOf,
    signIn: deps.signIn,
    resource,
    scopes: rules.supported,
    secure,
    consentCookies: cookieSealer<ConsentCookie>(deps.storeKeys, "toolkits-mcp authorize: consent"),
    logo: logoCache(store, createProvider.guardedFetch(prepared.oidc, provider)),
    logger: prepared.logger,
  });
  const callback = provider.callback();
  const admit = registrationGate(store, prepared.logger);
  const gate = {
    provider,
    personOf: (req: IncomingMessage) => deps.personOf(cookieRequest(req)),
    signIn: deps.signIn,
    logger: prepared.logger,
  };
  return {
    owns: (path) => WELL_KNOWN.has(path) || path.startsWith(`${AS_PATH}/`),
    async serve(req, res) {
      const path = pathOf(req);
      if (path.startsWith(`${INTERACTION_PATH}/`)) {
        const [uid = "", action, ...rest] = path.slice(INTERACTION_PATH.length + 1).split("/");
        if (rest.length) return void res.writeHead(404).end();
        return interaction(req, res, uid, action);
      }
      if (path === AUTHORIZE_PATH) {
        const answer = await authorizeGate(gate, req);
        if (answer) return sendResponse(res, answer);
      }
      if (path === `${AS_PATH}/register` && req.method === "POST") {
        const refused = await admit(req.socket.remoteAddress ?? "");
        if (refused)
          return json(res, refused.status, refused.body, { "retry-after": String(refused.retryAfterS) });
      }
      // Endpoints are named on the public URL, whatever host and scheme reached this process (TLS
      // ends before it); the caller's address is the socket's.
      req.headers["x-forwarded-proto"] = publicUrl.protocol.slice(0, -1);
      req.headers["x-forwarded-host"] = publicUrl.host;
      req.headers["x-forwarded-for"] = req.socket.remoteAddress ?? "";
      await callback(req, res);
    },
    rules,
    viewOf: (authInfo) => (authInfo.extra?.scoped ? scopesView(authInfo.scopes, rules.needs) : undefined),
    clients: {
      list: (principal) => authorisedClients(store, principal),
      revoke: (principal, clientId) => revokeClient(store, principal, clientId),
    },
    endSession: (request) => endSession(provider, secure, request),
  };
}

/** Session ids the library makes (nanoid); anything else names no session. */
const SESSION_ID = /^[\w-]{1,64}$/;

/** See `AuthorizationServer.endSession`. */
async function endSession(provider: Provider, secure: boolean, request: Request): Promise<string[]> {
  const name = provider.cookieName("session");
  const ids = cookieValues(request.headers.get("cookie"), name).filter((id) => SESSION_ID.test(id));
  for (const id of ids) await (await provider.Session.find(id))?.destroy();
  return ids.length ? [setCookie(name, "", 0, secure), setCookie(`${name}.sig`, "", 0, secure)] : [];
}

/**
 * Three things the library's settings cannot say: the metadata lists this server's scopes (never
 * `offline_access`, which would make clients ask for it and for `prompt=consent`), a client
 * asking for no scope is asked about all of them, and an authorization naming several resources
 * is refused before it starts (the library would take it, and a token here is for one).
 */
function adjust(provider: Provider, scopes: readonly string[]): void {
  provider.use(async (ctx, next) => {
    if (ctx.path === `${AS_PATH}/authorize` && Array.isArray(ctx.query.resource)) {
      ctx.status = 400;
      ctx.body = { error: "invalid_target", error_description: ONE_RESOURCE };
      return;
    }
    if (ctx.path === `${AS_PATH}/authorize` && ctx.method === "GET" && !ctx.query.scope)
      ctx.query = { ...ctx.query, scope: scopes.join(" ") };
    await next();
    const route = (ctx as { oidc?: { route?: string } }).oidc?.route;
    if (route === "discovery" && ctx.body && typeof ctx.body === "object")
      Object.assign(ctx.body, { scopes_supported: [...scopes] });
  });
}
