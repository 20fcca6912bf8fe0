import { redact } from "@toolkits/core";
import { isOAuthProvider, isProviderId, type ProviderId } from "../../credentials/providers.js";
import { CONNECT_PATH } from "../connections.js";
import { isConnectPath } from "../paths.js";
import { StoreUnavailable } from "../store/index.js";
import { type ConnectContext, type ConnectDeps, connectContext } from "./context.js";
import { linkWithoutCode, openLink } from "./link.js";
import { disconnect, listConnections } from "./manage.js";
import { submitMarketing } from "./marketing.js";
import { page } from "./respond.js";
import { currentSession, isSignedIn, type SignedInSession } from "./session.js";
import { errorText, finishSignIn, requireSignIn, showSignIn, submitToken } from "./signin.js";
import { messagePage } from "./templates.js";
import { finishUpstream } from "./upstream.js";

export type { ConnectDeps } from "./context.js";
export { SESSION_COOKIE } from "./session.js";

/**
 * The connect pages, fetch-style: resolves to `undefined` for a path outside `/connect`, else to
 * the page (HTML with no-store, no-referrer, a CSP without scripts or framing, nosniff).
 *
 * - `GET /connect` — the signed-in person's connections, each with a disconnect button.
 * - `GET /connect/<provider>?code=…` — a connect link: signs the browser in if needed, refuses
 *   (403, nothing used up) a code made for someone else, then sends to the provider's consent
 *   page (`pager`, `google`) or shows the App API key form (`marketing`).
 * - `GET /connect/<pager|google>/callback` — the provider's answer: stores the connection.
 * - `POST /connect/marketing` — the App API key form: checks the key with one read, stores it.
 * - `POST /connect/<provider>/disconnect` — removes a connection, revoking it upstream where possible.
 * - `GET /connect/sign-in`, `POST /connect/sign-in`, `GET /connect/signed-in` — browser sign-in:
 *   OpenID Connect at `MCP_OAUTH_ISSUER`, else a form taking the person's named static token.
 *
 * Every piece of state between requests (sessions, flows, CSRF tokens) lives in `deps.store`, so
 * any replica serves any step. A response sets at most one cookie, the session's.
 */
export function createConnectPages(deps: ConnectDeps): (request: Request) => Promise<Response | undefined> {
  const ctx = connectContext(deps);
  return async (request) => {
    const url = new URL(request.url);
    if (!isConnectPath(url.pathname)) return undefined;
    try {
      return await route(ctx, request, url);
    } catch (error) {
      return failure(ctx, error);
    }
  };
}

async function route(ctx: ConnectContext, request: Request, url: URL): Promise<Response> {
  const [first, second, ...rest] = url.pathname.slice(CONNECT_PATH.length).split("/").filter(Boolean);
  const method = request.method;
  if (rest.length) return notFound();
  if (first === undefined) {
    return method === "GET"
      ? signedIn(ctx, request, CONNECT_PATH, (s) => listConnections(ctx, s))
      : notAllowed("GET");
  }
  if (first === "sign-in" && second === undefined) {
    if (method === "GET") return showSignIn(ctx, request);
    return method === "POST" ? submitToken(ctx, request) : notAllowed("GET, POST");
  }
  if (first === "signed-in" && second === undefined) {
    return method === "GET" ? finishSignIn(ctx, request) : notAllowed("GET");
  }
  if (!isProviderId(first)) return notFound();
  return providerRoute(ctx, request, url, first, second);
}

async function providerRoute(
  ctx: ConnectContext,
  request: Request,
  url: URL,
  provider: ProviderId,
  action: string | undefined,
): Promise<Response> {
  const method = request.method;
  if (action === undefined && method === "GET") {
    const code = url.searchParams.get("code");
    if (!code) return linkWithoutCode();
    return signedIn(ctx, request, `${CONNECT_PATH}/${provider}?code=${encodeURIComponent(code)}`, (s) =>
      openLink(ctx, code, provider, s),
    );
  }
  if (action === undefined && method === "POST" && provider === "marketing") {
    return signedInPost(ctx, request, (s) => submitMarketing(ctx, request, s));
  }
  if (action === undefined) return notAllowed(provider === "marketing" ? "GET, POST" : "GET");
  if (action === "callback" && isOAuthProvider(provider)) {
    if (method !== "GET") return notAllowed("GET");
    return signedIn(ctx, request, undefined, (s) => finishUpstream(ctx, request, provider, s));
  }
  if (action === "disconnect") {
    if (method !== "POST") return notAllowed("POST");
    return signedInPost(ctx, request, (s) => disconnect(ctx, request, provider, s));
  }
  return notFound();
}

/**
 * Runs `handle` for a signed-in browser; any other is sent to sign in and back to `returnTo`, or
 * (a provider's callback, which cannot be replayed after signing in) told its session ended.
 */
async function signedIn(
  ctx: ConnectContext,
  request: Request,
  returnTo: string | undefined,
  handle: (session: SignedInSession) => Promise<Response>,
): Promise<Response> {
  const session = await currentSession(ctx, request);
  if (isSignedIn(session)) return handle(session);
  return returnTo === undefined ? sessionEnded() : requireSignIn(ctx, returnTo);
}

/** A form post needs a signed-in session: it cannot be carried through a sign-in. */
async function signedInPost(
  ctx: ConnectContext,
  request: Request,
  handle: (session: SignedInSession) => Promise<Response>,
): Promise<Response> {
  const session = await currentSession(ctx, request);
  return isSignedIn(session) ? handle(session) : sessionEnded();
}

const sessionEnded = () =>
  page(
    401,
    messagePage(
      "Your session has ended",
      "Nothing was changed. Ask your agent for a new link, or open this server's /connect page to sign in again.",
    ),
  );

const notFound = () => page(404, messagePage("Not found", "There is no such page here."));

const notAllowed = (allow: string) =>
  page(405, messagePage("Not allowed", "This page does not take that kind of request."), {
    headers: { allow },
  });

function failure(ctx: ConnectContext, error: unknown): Response {
  if (error instanceof StoreUnavailable) {
    ctx.logger.warn("connect page: store unavailable", { reason: redact(error.message) });
    return page(
      503,
      messagePage(
        "Try again shortly",
        "The credential store is unreachable right now. Reload this page in a moment.",
      ),
      { headers: { "retry-after": "5" } },
    );
  }
  ctx.logger.error("connect page failed", { reason: redact(errorText(error)) });
  return page(
    500,
    messagePage("Something went wrong", "Nothing was changed. Try again, or ask your agent for a new link."),
  );
}
