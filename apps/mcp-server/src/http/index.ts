import type { Server as NodeServer } from "node:http";
import type { Logger } from "@toolkits/core";
import type { ToolRegistry } from "@toolkits/core/mcp";
import { accountUrls } from "../connectors/accounts.js";
import { offeredUrls } from "../connectors/offer.js";
import { connectors } from "../connectors/selection.js";
import { createDispatcher } from "../dispatch.js";
import { providersOf, type UpstreamConnection } from "../front/account.js";
import { frontSite } from "../front/site.js";
import { iconSet } from "../icons/index.js";
import { onShutdown } from "../lifecycle.js";
import type { ServerOptions } from "../options/index.js";
import type { Pages } from "../pages.js";
import type { Selected } from "../served.js";
import { serverInfo, VERSION } from "../server.js";
import type { Team, TeamServing } from "../team/index.js";
import { withoutTrailingSlash } from "../urls.js";
import { type View, WHOLE } from "../views.js";
import { authConfig, type HttpAuthConfig, perUserProblem } from "./auth/config.js";
import { tokenVerifier } from "./auth/verify.js";
import { metadataPathOf } from "./connectors.js";
import { Drain } from "./drain.js";
import { MCP_PATH, mcpEndpoint } from "./endpoint.js";
import { authGuard } from "./guards/auth.js";
import { hostGuard } from "./guards/host.js";
import { originGuard } from "./guards/origin.js";
import { isLoopbackHost, listen } from "./listen.js";
import { readiness } from "./ready.js";
import { rpcError } from "./respond.js";
import { route } from "./routes.js";
import { scopeRefusal } from "./scope-challenge.js";

/** A bound HTTP server, waiting for the registry it will serve. */
export interface ListeningHttp {
  server: NodeServer;
  /** The server's externally visible base URL: `--public-url`, else the bound address. */
  publicUrl: string;
  /** The authentication it checks. */
  auth: HttpAuthConfig | undefined;
  /**
   * Starts answering requests from the registry of each request's view (`/mcp`, and the connector
   * URLs' selections of `served`), with the toolkits' `pages` outside authentication, and, per
   * user, `team`'s connect pages, with every call made as its caller.
   */
  serve(registryOf: (view: View) => ToolRegistry, served: Served, pages?: Pages, team?: TeamServing): void;
}

/** What the server serves (the toolkits it composes, and its own selection of their tools). */
export interface Served extends Selected {
  /** A shared server's upstream accounts, for its front page. */
  shared?: () => Promise<UpstreamConnection[]>;
}

/**
 * Binds first, so what depends on the address (the resource metadata, the pages' URL the tools hand
 * out, the origin the pages post back from) is built knowing it; serves, once given the registry,
 * until SIGTERM or SIGINT, then drains (see `Drain.close`), closes the team's store and exits with 0.
 * @throws Error for weak or incomplete authentication settings (see `authConfig`), a
 *   non-loopback interface without authentication, or, with `team`, authentication that cannot tell
 *   people apart (see `perUserProblem`).
 */
export async function listenHttp(
  options: ServerOptions,
  logger: Logger,
  team?: Team,
): Promise<ListeningHttp> {
  const loopback = isLoopbackHost(options.host);
  const auth = authConfig(options.auth, { loopback, warn: (message) => logger.warn(message) });
  const problem = team ? perUserProblem(auth) : undefined;
  if (problem) throw new Error(problem);
  if (auth?.builtin && !team?.issuer)
    throw new Error("--authorization-server builtin needs --credentials per-user: it signs each person in.");
  if (!loopback && !auth) {
    throw new Error(
      `Refusing to serve ${options.host} without authentication: set MCP_HTTP_BEARER_TOKENS or MCP_OAUTH_ISSUER, MCP_OAUTH_AUDIENCE and MCP_OAUTH_JWKS_URL.`,
    );
  }
  const { server, localUrl } = await listen(options, logger);
  // Without a trailing slash: the issuer, the resource and every URL made on it must agree exactly.
  const publicUrl = withoutTrailingSlash(options.publicUrl ?? localUrl);
  const verifier = auth && tokenVerifier(auth, logger, auth.builtin ? team?.issuer?.(publicUrl) : undefined);
  const drain = new Drain();
  onShutdown(async (signal) => {
    logger.warn("shutting down: finishing in-flight requests", { signal, graceMs: options.shutdownGraceMs });
    await drain.close(server, options.shutdownGraceMs);
    await team?.close().catch(() => {});
  }, logger);
  return {
    server,
    publicUrl,
    auth,
    serve(registryOf, served, pages, serving) {
      const whole = registryOf(WHOLE);
      const builtin = serving?.authorization;
      // Only an authorization server gives clients something to discover.
      // The built-in server issues the tokens here; else an external IdP may.
      const issuer = builtin ? publicUrl : auth?.oauth?.issuer;
      // The built-in server's scopes a URL's tools can use: a read-only URL never offers `write`.
      const scopesAt = (view: View) => builtin?.rules.supportedBy(view.admits);
      const metadata = issuer
        ? (path: string, view: View) => protectedResource(publicUrl, issuer, path, scopesAt(view))
        : undefined;
      const metadataUrlOf = (path: string) => metadata && `${publicUrl}${metadataPathOf(path)}`;
      const authenticate = (path: string) =>
        authGuard({
          verifier,
          resourceMetadataUrl: metadataUrlOf(path),
          resource: `${publicUrl}${path}`,
          perUser: serving !== undefined,
          viewOf: builtin?.viewOf,
        });
      const info = serverInfo(iconSet(publicUrl));
      const mcp = mcpEndpoint({
        registryOf,
        serverInfo: info,
        dispatcher: createDispatcher(registryOf, info),
        authenticate: (req, res, path) => authenticate(path)(req, res),
        challenge: builtin && scopeRefusal(whole, builtin.rules.needsOf, metadataUrlOf),
        maxBodyBytes: options.maxBodyBytes,
        requestTimeoutMs: options.requestTimeoutMs,
        graceOver: drain.graceOver,
        clients: serving?.clients,
        apps: options.apps === "on",
        logger,
      });
      const views = connectors(served.toolkits, served.tools);
      const toolNamesOf = (kit: string) => registryOf(views.viewOf(kit)).listing.map((tool) => tool.name);
      const answer = route({
        drain,
        guards: [
          hostGuard(options.allowedHosts),
          originGuard({ allowed: options.allowedOrigins, own: new URL(publicUrl).origin, loopback }),
        ],
        mcp,
        connectors: views,
        health: () => ({ status: "ok", tools: whole.listing.length }),
        ready: () => readiness({ store: team?.ready, verifier }, logger),
        metadata,
        pages,
        site: frontSite({
          publicUrl,
          version: VERSION,
          auth: issuer ? "oauth" : auth ? "token" : "none",
          urls: () => offeredUrls(served.toolkits, served.tools, registryOf),
          toolNames: whole.listing.map((tool) => tool.name),
          people: serving && {
            providers: providersOf(served.tools),
            account: serving.account,
            signIn: serving.visitors.signIn,
          },
          accountUrls: (labels) => accountUrls(served.toolkits, labels, toolNamesOf),
          shared: served.shared,
          loopback,
          logger,
        }),
        connect: serving?.pages,
        authorization: builtin,
      });
      server.on("request", (req, res) => {
        drain.track(res);
        answer(req, res).catch((error: unknown) => {
          const message = error instanceof Error ? error.message : String(error);
          // A client gone mid-request (or cut off by a time limit) is nobody's fault here.
          if (req.socket.destroyed) return logger.debug("HTTP request ended early", { error: message });
          logger.error("HTTP request failed", { error: message });
          if (!res.headersSent) rpcError(res, 500, "Internal error");
        });
      });
      logger.info("serving Streamable HTTP", {
        url: `${localUrl}${MCP_PATH}`,
        tools: whole.listing.length,
        credentials: serving ? "per-user" : "shared",
      });
    },
  };
}

/**
 * The protected-resource metadata (RFC 9728) of the MCP URL at `path`, naming the authorization
 * server, and, when the server is its own, the scopes the URL's tools can use (clients ask for these).
 */
function protectedResource(
  publicUrl: string,
  issuer: string,
  path: string,
  scopes?: readonly string[],
): string {
  return JSON.stringify({
    resource: `${publicUrl}${path}`,
    authorization_servers: [issuer],
    bearer_methods_supported: ["header"],
    ...(scopes && { scopes_supported: scopes }),
  });
}
