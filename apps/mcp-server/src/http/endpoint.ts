import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type AuthInfo,
  type ClientCapabilities,
  createMcpHandler,
  type Implementation,
} from "@modelcontextprotocol/server";
import type { Logger } from "@toolkits/core";
import type { ToolRegistry } from "@toolkits/core/mcp";
import { CONNECTOR_FORM, SelectionError } from "../connectors/selection.js";
import type { CallHeaders, Dispatcher } from "../dispatch.js";
import {
  appsOf,
  type Caller,
  callScopeOf,
  elicitationOf,
  envelopeRevision,
  eraOf,
  type RequestScope,
} from "../scope.js";
import { createServerFor } from "../server.js";
import { appsView, type View, WHOLE, within } from "../views.js";
import type { Authenticated } from "./guards/auth.js";
import { REFUSED, readJsonBody } from "./guards/body.js";
import { CallsInFlight, callIds, cancelledRequestId, type Exchange, exchanges } from "./inflight.js";
import { json, sendResponse, webRequest } from "./respond.js";

/** What a legacy client declared at `initialize`, remembered per person and client (per-user mode). */
export interface ClientMemory {
  remember(caller: Caller, capabilities: ClientCapabilities | undefined): Promise<void>;
  recall(caller: Caller): Promise<ClientCapabilities | undefined>;
}

export interface EndpointOptions {
  /** The registry serving each view. */
  registryOf(view: View): ToolRegistry;
  /** The server's identity, icons included. */
  serverInfo: Implementation;
  dispatcher: Dispatcher;
  /** The front door for the MCP URL at `path`: who is calling, or undefined once it has answered. */
  authenticate(req: IncomingMessage, res: ServerResponse, path: string): Promise<Authenticated | undefined>;
  maxBodyBytes: number;
  requestTimeoutMs: number;
  /** Aborts when a shutdown's grace is over. */
  graceOver: AbortSignal;
  /** Per-user mode: legacy clients' capabilities, kept between their stateless requests. */
  clients?: ClientMemory;
  /** `--apps on`: MCP Apps views for the clients that take them. */
  apps?: boolean;
  /**
   * Refuses a request before dispatch, when its token's scopes do not cover a tool it calls: the
   * 403 `insufficient_scope` challenge (see http/scope-challenge.ts); undefined lets it through.
   */
  challenge?(body: unknown, who: Authenticated, path: string): Response | undefined;
  logger: Logger;
}

export const MCP_PATH = "/mcp";

/** Which MCP URL a request came to: `/mcp`, or a connector URL `/mcp/<selection>`. */
export interface McpTarget {
  path: string;
  /** The tools the URL serves. @throws SelectionError for a selection not served here (answered 404). */
  view(): View;
}

/** `/mcp`: everything the server serves. */
export const WHOLE_TARGET: McpTarget = { path: MCP_PATH, view: () => WHOLE };

/** Per SDK-bound request: its scope and its calls' cancellation signals. */
interface Pending {
  scope: RequestScope;
  callSignal(id: string | number): AbortSignal | undefined;
}

/**
 * `/mcp` and the connector URLs: the front door, then the URL's view (404 for a selection not
 * served here), the body's size, type and JSON, then the request's scope, built once, and the
 * dispatcher, which answers it from the registry or through the SDK's handler (both protocol eras,
 * a cheap server per request).
 */
export function mcpEndpoint(
  options: EndpointOptions,
): (req: IncomingMessage, res: ServerResponse, bodyRead: () => void, target?: McpTarget) => Promise<void> {
  const { registryOf, dispatcher, clients, logger } = options;
  const calls = new CallsInFlight();
  const openExchange = exchanges(options.requestTimeoutMs, options.graceOver);
  const pending = new WeakMap<Request, Pending>();
  const handler = createMcpHandler(
    ({ requestInfo }) => {
      const request = requestInfo && pending.get(requestInfo);
      if (!request) throw new Error("A request reached the SDK without its scope.");
      return createServerFor(
        registryOf(request.scope.view),
        (ctx, _initialized, progress) =>
          callScopeOf(request.scope, {
            id: ctx.mcpReq.id,
            signal: anySignal(ctx.mcpReq.signal, request.callSignal(ctx.mcpReq.id)),
            progress,
          }),
        { apps: options.apps, info: options.serverInfo },
      );
    },
    {
      onerror: (error) => logger.debug("MCP request refused", { error: error.message }),
      maxRequestBodySize: options.maxBodyBytes,
    },
  );
  return async (req, res, bodyRead, target = WHOLE_TARGET) => {
    const who = await options.authenticate(req, res, target.path);
    if (!who) return;
    const view = targetView(target, res);
    if (!view) return;
    const body = await readJsonBody(req, res, options.maxBodyBytes);
    if (body === REFUSED) return;
    bodyRead();
    const refusal = options.challenge?.(body, who, target.path);
    if (refusal) return sendResponse(res, refusal);
    const cancelled = cancelledRequestId(body);
    if (cancelled !== undefined) calls.cancel(who.caller.key, cancelled);
    if (clients && isInitialize(body)) await clients.remember(who.caller, initializeCapabilities(body));
    const exchange = openExchange(res);
    const scope = requestScope(body, req.headers as CallHeaders, who, exchange, {
      clients,
      apps: options.apps,
      view,
    });
    const inFlight = calls.open(who.caller.key, callIds(body), exchange);
    res.once("close", inFlight.close);
    await dispatcher.dispatch(
      body,
      scope,
      {
        sdk: () =>
          viaSdk(req, res, { scope, callSignal: (id) => inFlight.call(id)?.signal }, who.authInfo, body),
        reply: (response) => {
          if (!res.headersSent) json(res, 200, response);
        },
        call: (id) => inFlight.call(id),
      },
      req.headers as CallHeaders,
    );
  };

  async function viaSdk(
    req: IncomingMessage,
    res: ServerResponse,
    request: Pending,
    authInfo: AuthInfo | undefined,
    body: unknown,
  ): Promise<void> {
    const web = webRequest(req, MCP_PATH, request.scope.signal);
    pending.set(web, request);
    await sendResponse(res, await handler.fetch(web, { authInfo, parsedBody: body }));
  }
}

/**
 * The scope of one `/mcp` request, built once: a single message with a 2026-07-28 envelope is
 * modern, anything else legacy (whose URL elicitation comes from what the client declared at
 * `initialize`, remembered per person; unknown without per-user mode). Its view is the URL's,
 * narrowed by what the caller's token allows, as the client takes MCP Apps views (known from a
 * modern envelope; unknown for a stateless legacy request).
 */
function requestScope(
  body: unknown,
  headers: CallHeaders,
  who: Authenticated,
  exchange: Exchange,
  { clients, apps, view }: Pick<EndpointOptions, "clients" | "apps"> & { view: View },
): RequestScope {
  const message = Array.isArray(body)
    ? undefined
    : (body as { method?: unknown; params?: unknown } | undefined);
  const params = message?.params;
  const revision = envelopeRevision(params);
  const era = eraOf(params);
  const { caller } = who;
  const initialized = () => (clients && caller.principal ? clients.recall(caller) : undefined);
  const urlElicitation = elicitationOf(era, params, initialized);
  return {
    caller,
    era,
    revision: revision ?? headers["mcp-protocol-version"],
    // Made only when asked for: a fast-path call uses its own.
    get signal() {
      return exchange.signal;
    },
    urlElicitation,
    view: within(view, who.view ?? WHOLE, appsView(apps ? appsOf(era, params, undefined, false) : undefined)),
  };
}

/** The target's view, or undefined once a selection not served here is answered 404 with why. */
function targetView(target: McpTarget, res: ServerResponse): View | undefined {
  try {
    return target.view();
  } catch (error) {
    if (!(error instanceof SelectionError)) throw error;
    res
      .writeHead(404, { "content-type": "text/plain; charset=utf-8" })
      .end(`Not found: ${error.message} Connector URLs take the form ${CONNECTOR_FORM}.\n`);
    return undefined;
  }
}

const anySignal = (first: AbortSignal, second: AbortSignal | undefined): AbortSignal =>
  second ? AbortSignal.any([first, second]) : first;

const isInitialize = (body: unknown): boolean =>
  (body as { method?: unknown } | null)?.method === "initialize";

function initializeCapabilities(body: unknown): ClientCapabilities | undefined {
  const capabilities = (body as { params?: { capabilities?: unknown } }).params?.capabilities;
  return typeof capabilities === "object" && capabilities !== null
    ? (capabilities as ClientCapabilities)
    : undefined;
}
