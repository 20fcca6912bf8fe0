import type { IncomingMessage, ServerResponse } from "node:http";
import { type ClientCapabilities, createMcpHandler, type Implementation } from "@modelcontextprotocol/server";
import type { Logger } from "@toolkits/core";
import type { InboundBody, ToolRegistry } from "@toolkits/core/mcp";
import { CONNECTOR_FORM, SelectionError } from "../connectors/selection.js";
import type { CallHeaders, Dispatcher } from "../dispatch.js";
import {
  type Caller,
  callScope,
  carriedScope,
  type RequestScope,
  requestScope,
  scopedRegistry,
  scopeOfAuth,
  withScope,
} from "../scope.js";
import { createServerFor } from "../server.js";
import { httpArrival, telemetry } from "../telemetry/index.js";
import { type View, WHOLE, within } from "../views.js";
import type { Authenticated } from "./guards/auth.js";
import { REFUSED, readJsonBody } from "./guards/body.js";
import { CallsInFlight, callIds, exchanges } from "./inflight.js";
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
  challenge?(inbound: InboundBody, who: Authenticated, path: string): Response | undefined;
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

/**
 * `/mcp` and the connector URLs: the front door, then the URL's view (404 for a selection not
 * served here), the body's size, type and JSON, read once into its messages, then the request's
 * scope, built once, and the dispatcher, which answers it from the registry or through the SDK's
 * handler (both protocol eras, a cheap server per request, which finds the scope in the request's
 * authentication facts).
 */
export function mcpEndpoint(
  options: EndpointOptions,
): (req: IncomingMessage, res: ServerResponse, bodyRead: () => void, target?: McpTarget) => Promise<void> {
  const { registryOf, dispatcher, clients, logger } = options;
  const requestRegistry = (scope: RequestScope) => scopedRegistry(registryOf(scope.view), scope);
  const names = registryOf(WHOLE).names;
  const calls = new CallsInFlight();
  const openExchange = exchanges(options.requestTimeoutMs, options.graceOver);
  const handler = createMcpHandler(
    ({ authInfo }) =>
      createServerFor(
        requestRegistry(scopeOfAuth(authInfo)),
        (ctx, _initialized, progress) =>
          callScope(carriedScope(ctx), { id: ctx.mcpReq.id, signal: ctx.mcpReq.signal, progress }),
        { apps: options.apps, info: options.serverInfo },
      ),
    {
      onerror: (error) => logger.debug("MCP request refused", { error: error.message }),
      maxRequestBodySize: options.maxBodyBytes,
    },
  );
  return async (req, res, bodyRead, target = WHOLE_TARGET) => {
    const receivedAt = performance.now();
    const who = await options.authenticate(req, res, target.path);
    if (!who) return;
    const view = targetView(target, res);
    if (!view) return;
    const inbound = await readJsonBody(req, res, options.maxBodyBytes, names);
    if (inbound === REFUSED) return;
    bodyRead();
    const { caller } = who;
    // Each message's span and duration, from the body parsed once, ended by the answer written.
    const operations = telemetry()?.operations(inbound, httpArrival(req, receivedAt, caller.principal));
    const refusal = options.challenge?.(inbound, who, target.path);
    if (refusal) {
      operations?.abandon("insufficient_scope");
      return sendResponse(res, refusal);
    }
    calls.cancel(caller.key, inbound);
    const single = inbound.single;
    if (clients && single?.method === "initialize") await clients.remember(caller, single.capabilities);
    const exchange = openExchange(res);
    const inFlight = calls.open(caller.key, callIds(inbound), exchange);
    res.once("close", inFlight.close);
    const scope = requestScope(single, {
      caller,
      signal: () => exchange.signal,
      call: inFlight.call,
      // A legacy client declared its capabilities at `initialize`, which per-user mode remembers.
      initialized: { recall: async () => (clients && caller.principal ? clients.recall(caller) : undefined) },
      view: within(view, who.view ?? WHOLE),
      apps: options.apps === true,
      within: operations?.run,
    });
    // An exchange that ends unanswered (the client gone, a time limit's answer) ends what is open.
    if (operations)
      res.once("close", () =>
        operations.abandon(res.statusCode >= 400 ? String(res.statusCode) : "cancelled"),
      );
    const dispatch = () =>
      dispatcher.dispatch(
        inbound,
        scope,
        {
          sdk: async () => {
            const web = webRequest(req, MCP_PATH, scope.signal);
            const authInfo = withScope(who.authInfo, scope);
            const response = await handler.fetch(web, { authInfo, parsedBody: inbound.raw });
            await sendResponse(res, response, operations?.answeredHttp);
          },
          reply: (response, failure) => {
            if (!res.headersSent) json(res, 200, response);
            operations?.replied(failure);
          },
        },
        req.headers as CallHeaders,
      );
    // Within the message's span, so what the call sends upstream and to the store is its child.
    await (operations ? operations.run(dispatch) : dispatch());
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
