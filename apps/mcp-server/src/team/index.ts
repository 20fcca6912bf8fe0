import { pathToFileURL } from "node:url";
import {
  type AnyToolDefinition,
  type CallRecord,
  type Host,
  hostFetch,
  type Logger,
  type StateStore,
} from "@toolkits/core";
import { PROVIDERS } from "../credentials/providers.js";
import type { BuiltinIssuer } from "../http/auth/builtin.js";
import { type HttpAuthConfig, namedTokenPrincipal, tokenNames } from "../http/auth/config.js";
import type { ClientMemory } from "../http/endpoint.js";
import { stderrLogger } from "../logger.js";
import type { ServerOptions } from "../options/index.js";
import type { PageVisitors } from "../pages.js";
import type { Caller } from "../scope.js";
import type { AuthorizationServer } from "./authorize/index.js";
import { type ConnectSite, connectSite } from "./connect/index.js";
import { signInMethods } from "./connect/methods.js";
import { storedConnections } from "./connections.js";
import { teamCredentials } from "./credentials.js";
import { type AccountCallRecord, perUserHost } from "./host.js";
import { identityCheck } from "./identity.js";
import { parseRateLimits, personLimits } from "./limits.js";
import { endPerson } from "./offboard.js";
import { personActivity } from "./people.js";
import { indexPeople } from "./people-indexes.js";
import { principalHash } from "./store/hash.js";
import { hashKey, openStore, StoreUnavailable, type TeamStore } from "./store/index.js";
import { endRemovedNames } from "./token-names.js";

/** What `--credentials per-user` needs of the server's options. */
export type TeamOptions = Pick<
  ServerOptions,
  | "storeUrl"
  | "storePath"
  | "storeKey"
  | "storeKeyPrevious"
  | "rateLimits"
  | "rateLimitWaitMs"
  | "oauthClients"
  | "connectClient"
> &
  Partial<Pick<ServerOptions, "auth">>;

/** The per-user parts of a running server, once its store is open. */
export interface Team {
  /**
   * Toolkit state (page sessions) in the shared store, for the host. Each person's calls and pages
   * get their own part of it instead (`TeamServing.visitors.stateOf`).
   */
  state: StateStore;
  /**
   * Serves the whole team once the server's address is known: the per-user host over `base`, the
   * connect pages, and the memory of which 2025 clients take URL elicitations.
   */
  serve(
    base: Host,
    publicUrl: string,
    auth: HttpAuthConfig | undefined,
    tools: readonly AnyToolDefinition[],
  ): TeamServing;
  /**
   * With `--authorization-server builtin`: the front door's view of the built-in server on
   * `publicUrl` (its issuer, audience and keys, from the store).
   */
  issuer?(publicUrl: string): BuiltinIssuer;
  /** Settles once the store answers (within a few seconds). @throws StoreUnavailable saying why not. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** What the HTTP server asks of the team on each request. */
export interface TeamServing {
  host: Host;
  /** The `/connect` pages, fetch-style; undefined for other paths. */
  pages(request: Request): Promise<Response | undefined>;
  /** Who the browsers are (their /connect session), for the toolkits' pages, each person's own. */
  visitors: PageVisitors;
  /** The signed-in person and their connections, for the front page (see `ConnectSite.account`). */
  account: ConnectSite["account"];
  /**
   * Whether each person's 2025 client declared URL elicitation at initialize, kept between its
   * stateless requests; unknown reads as undeclared (the call then answers with the link as text).
   */
  clients: ClientMemory;
  /** With `--authorization-server builtin`: the authorization server of the MCP URL. */
  authorization?: AuthorizationServer;
}

/** How long a 2025 client's declared capabilities are remembered, in milliseconds (30 days). */
const CLIENT_MEMORY_MS = 30 * 24 * 3_600_000;

/**
 * Opens the store named by `options.storeUrl`, else the file at `options.storePath`, sealed with
 * `options.storeKey` (MCP_STORE_KEY), for per-user serving.
 * @throws Error when the store key is missing or malformed, or the store cannot be opened.
 */
export async function openTeam(options: TeamOptions, logger: Logger): Promise<Team> {
  const { storeKey: key } = options;
  if (!key) {
    throw new Error(
      "Per-user credentials are sealed in the store under MCP_STORE_KEY: set it to 32 random bytes in base64 (openssl rand -base64 32).",
    );
  }
  const limits = parseRateLimits(options.rateLimits);
  const store = await openStore(
    {
      // An empty MCP_STORE_URL counts as unset.
      url: options.storeUrl || pathToFileURL(options.storePath).href,
      key,
      previousKey: options.storeKeyPrevious,
    },
    logger,
  );
  const { auth } = options;
  // A person the identity provider refuses, or whose named token was removed, loses what they
  // authorised here; their connections stay until `admin revoke`.
  const offboard = (principal: string) => endPerson(store, principal);
  await startTasks(logger, async () => {
    await indexPeople(store, logger);
    await endRemovedNames(store, tokenNames(auth?.bearerTokens), offboard, logger);
  });
  const signInAt = signInMethods({ issuer: auth?.oauthIssuer, connectClient: options.connectClient }).oidc;
  // The library and the keys before anything listens: a failure stops the start.
  const builtin =
    auth?.authorizationServer === "builtin"
      ? await (await import("./authorize/index.js")).prepare(
          store,
          logger,
          { accessTokenTtlS: auth.accessTokenTtlS, refreshGraceS: auth.refreshGraceS },
          {
            intervalMs: auth.revalidateIntervalS * 1000,
            grantMaxAgeMs: auth.grantMaxAgeS * 1000,
            identity: signInAt && identityCheck(signInAt.issuer, signInAt.client, logger),
            offboard,
          },
        )
      : undefined;
  const activity = personActivity(store, logger);
  // Each person's toolkit state (page sessions) apart: a page serves a person only their own.
  const stateOf = (principal: string) => store.state(`person:${hashKey(principal)}`);
  return {
    state: store.state("kit"),
    serve(base, publicUrl, auth, tools) {
      const connections = storedConnections(store, publicUrl, options.oauthClients);
      const host = perUserHost(
        // The audit trail is written whatever the log level.
        { ...base, audit: auditLog(stderrLogger("info")) },
        {
          credentials: teamCredentials(connections, logger),
          grants: connections.of,
          limits: personLimits(store, limits, options.rateLimitWaitMs),
          state: stateOf,
          activity,
        },
      );
      // Signing browsers in comes first: the built-in authorization server signs people in with
      // it, and the connect pages then list what they authorised there.
      const site = connectSite({
        connections,
        store,
        storeKeys: { key, previousKey: options.storeKeyPrevious },
        publicUrl,
        issuer: auth?.idpIssuer,
        connectClient: options.connectClient,
        oauthClients: options.oauthClients,
        settings: base.settings,
        logger,
        fetch: hostFetch(base),
        // People calling with a named token sign in with it; without any, nobody can.
        identifyToken: auth?.staticTokens.some((entry) => entry.name) ? namedTokenPrincipal(auth) : undefined,
        scopes: (provider) => PROVIDERS[provider].scopes(tools),
      });
      const visitors = { personOf: site.personOf, signIn: site.signIn, stateOf };
      const authorization = builtin?.serve({
        publicUrl,
        tools,
        connections,
        storeKeys: { key, previousKey: options.storeKeyPrevious },
        privateHosts: options.auth?.cimdPrivateHosts ?? [],
        personOf: site.personOf,
        signIn: site.signIn,
      });
      return {
        host,
        pages: site.pages(authorization),
        visitors,
        account: site.account,
        clients: clientMemory(store, logger),
        authorization,
      };
    },
    issuer: builtin && ((publicUrl) => builtin.issuer(publicUrl)),
    ready: () => store.ready(),
    close: () => store.close(),
  };
}

/**
 * Runs the start's one-time work on the store (indexing an earlier store, ending the grants of
 * removed names). A store out of reach does not stop the start, as it stops no other per-user
 * start (calls answer `unavailable` until it is back): the work is left to the next start, and
 * said so. With the built-in authorization server the start needs the store anyway (its keys).
 */
async function startTasks(logger: Logger, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (!(error instanceof StoreUnavailable)) throw error;
    logger.warn(
      "the store was out of reach at start: indexing it and ending the grants of removed names wait for the next start",
      {
        reason: error.message,
      },
    );
  }
}

/** Remembers only what matters of a 2025 client's capabilities: URL elicitation, for 30 days. */
function clientMemory(store: TeamStore, logger: Logger): ClientMemory {
  const keyOf = (caller: Caller) => `tk:client:${hashKey(`${caller.principal}\n${caller.clientId}`)}`;
  return {
    remember: (caller, capabilities) =>
      store
        .set(
          keyOf(caller),
          { urlElicitation: capabilities?.elicitation?.url !== undefined },
          CLIENT_MEMORY_MS,
        )
        .catch((error: unknown) => {
          logger.warn("could not remember the client's capabilities", { error: (error as Error).message });
        }),
    recall: async (caller) => {
      const known = await store.get<{ urlElicitation: boolean }>(keyOf(caller)).catch(() => undefined);
      return known?.urlElicitation ? { elicitation: { url: {} } } : undefined;
    },
  };
}

/**
 * One info line per tool call: who (by the pseudonym every log line, span and `admin` listing
 * uses, never the principal), as which accounts when chosen (`pager=eu`), which tool, the outcome,
 * how long, how many upstream requests.
 */
function auditLog(logger: Logger): (record: CallRecord) => void {
  return ({ tool, principal, outcome, durationMs, upstreamRequests, accounts }: AccountCallRecord) =>
    logger.info("tool call", {
      ...(principal !== undefined && { principal: principalHash(principal) }),
      ...(accounts && {
        accounts: Object.entries(accounts)
          .map((pair) => pair.join("="))
          .join(","),
      }),
      tool,
      outcome,
      duration_ms: Math.round(durationMs * 10) / 10,
      upstream_requests: upstreamRequests,
    });
}
