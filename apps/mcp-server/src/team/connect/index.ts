import { redact } from "@toolkits/core";
import { isOAuthProvider, isProviderId, type ProviderId } from "../../credentials/providers.js";
import type { Account } from "../../front/account.js";
import { isLoopbackHost } from "../../http/listen.js";
import { page } from "../../web/respond.js";
import { messagePage } from "../../web/templates.js";
import { CONNECT_PATH } from "../connections.js";
import { isConnectPath } from "../paths.js";
import { StoreUnavailable } from "../store/index.js";
import { accountOf } from "./account.js";
import {
  type ConnectAuthorization,
  type ConnectContext,
  type ConnectDeps,
  connectContext,
} from "./context.js";
import { errorText } from "./failures.js";
import { linkWithoutCode, openLink } from "./link.js";
import { disconnect, listConnections, revokeAuthorised } from "./manage.js";
import { submitMarketing } from "./marketing.js";
import { finishSignIn } from "./oidc.js";
import { makeDefault, rename } from "./relabel.js";
import { currentSession, type SignedInSession } from "./session.js";
import { requireSignIn, showSignIn, submitToken } from "./signin.js";
import { showSignOut, submitSignOut } from "./signout.js";
import { finishUpstream } from "./upstream.js";

export type { ConnectAuthorization, ConnectDeps } from "./context.js";

/**
 * Who the browsers that reach the server are (for the toolkits' pages, the front page and the
 * built-in authorization server), and the connect pages.
 */
export interface ConnectSite {
  /**
   * The pages, fetch-style, with the built-in authorization server's clients and sessions when it
   * runs (made apart from the rest, which that server is built on): resolves to `undefined` for a
   * path outside `/connect`, else to the page (HTML with no-store, a same-origin referrer policy, a
   * CSP without scripts or framing, X-Frame-Options DENY, nosniff).
   *
   * - `GET /connect` — the signed-in person's connections, each with a disconnect button.
   * - `GET /connect/<provider>?code=…` — a connect link: signs the browser in if needed (the way the
   *   code's person signs in), refuses (403, nothing used up) a code made for someone else, then
   *   sends to the provider's consent page (`pager`, `google`) or shows the App API key form
   *   (`marketing`). An unknown or expired code is answered 410 at once.
   * - `GET /connect/<pager|google>/callback` — the provider's answer: stores the connection.
   * - `POST /connect/marketing` — the App API key form: checks the key with one read, stores it.
   * - `POST /connect/<provider>/disconnect` — removes a connection, revoking it upstream where possible.
   * - `POST /connect/<provider>/rename`, `POST /connect/<provider>/default` — relabels one account
   *   (`label`, `new_label`), makes one the provider's default (`label`).
   * - `GET /connect/sign-in`, `POST /connect/sign-in`, `GET /connect/signed-in` — browser sign-in:
   *   OpenID Connect at `MCP_OAUTH_ISSUER`, a form taking the person's named static token, or both.
   * - `GET /connect/sign-out`, `POST /connect/sign-out` — ends the browser's session.
   * - `POST /connect/clients/revoke` — with the built-in authorization server (`authorization`):
   *   ends every grant the person gave a client.
   *
   * Signed-in sessions and upstream authorizations live in the store, so any replica serves any
   * step; a browser not signed in carries its sign-in in its sealed cookie, so it writes nothing
   * there. A response sets one cookie, the session's (`__Host-toolkits_connect` over https), except
   * signing out, which also clears the built-in authorization server's.
   * @throws Error naming the variable when a store key is not 32 bytes of base64.
   */
  pages(authorization?: ConnectAuthorization): (request: Request) => Promise<Response | undefined>;
  /**
   * The principal the request's browser is signed in as at /connect (its session cookie), or
   * `undefined`. @throws StoreUnavailable when the store is out of reach.
   */
  personOf(request: Request): Promise<string | undefined>;
  /**
   * A response sending the browser to sign in (as /connect does: the identity provider, the token
   * form, or a choice of both), then back to `returnTo`, a path on this server. Writes nothing to
   * the store.
   */
  signIn(returnTo: string): Promise<Response>;
  /**
   * The person the request's browser is signed in as, with their connections to `providers` (a
   * connect link for each one missing), for the front page; undefined when not signed in.
   * @throws StoreUnavailable when the store is out of reach.
   */
  account(request: Request, providers: readonly ProviderId[]): Promise<Account | undefined>;
}

/**
 * The connect pages (see `ConnectSite.pages`) and what the toolkits' pages need of them, sharing
 * one context. Warns on `deps.logger` when the public URL is plain http away from this machine,
 * as the session cookie then goes without `Secure`.
 * @throws Error naming the variable when a store key is not 32 bytes of base64.
 */
export function connectSite(deps: ConnectDeps): ConnectSite {
  const ctx = connectContext(deps);
  if (!ctx.secureCookies && !isLoopbackHost(new URL(ctx.base).hostname)) {
    deps.logger.warn(
      "MCP_PUBLIC_URL is not https: the /connect session cookie goes without Secure, so browsers also send it over plain http. Set MCP_PUBLIC_URL to the https address people use (a TLS proxy in front does not change it).",
      { public_url: ctx.base },
    );
  }
  return {
    pages(authorization) {
      const pagesCtx: ConnectContext = { ...ctx, authorization };
      return async (request) => {
        const url = new URL(request.url);
        if (!isConnectPath(url.pathname)) return undefined;
        try {
          return await route(pagesCtx, request, url);
        } catch (error) {
          return failure(pagesCtx, error);
        }
      };
    },
    personOf: async (request) => (await currentSession(ctx, request))?.record.principal,
    signIn: (returnTo) => requireSignIn(ctx, returnTo).catch((error: unknown) => failure(ctx, error)),
    account: (request, providers) => accountOf(ctx, request, providers),
  };
}

async function route(ctx: ConnectContext, request: Request, url: URL): Promise<Response> {
  const [first, second, ...rest] = url.pathname.slice(CONNECT_PATH.length).split("/").filter(Boolean);
  const method = request.method;
  if (rest.length) return notFound();
  if (first === undefined) {
    if (method !== "GET") return notAllowed("GET");
    const session = await currentSession(ctx, request);
    return session ? listConnections(ctx, session) : requireSignIn(ctx, CONNECT_PATH);
  }
  if (second === undefined) {
    const own = ownPage(ctx, request, first);
    if (own) return own;
  }
  if (first === "clients" && second === "revoke" && ctx.authorization) {
    if (method !== "POST") return notAllowed("POST");
    return withSession(ctx, request, (s) => revokeAuthorised(ctx, request, s));
  }
  if (!isProviderId(first)) return notFound();
  return providerRoute(ctx, request, url, first, second);
}

/** The sign-in and sign-out pages; undefined for another name. */
function ownPage(
  ctx: ConnectContext,
  request: Request,
  name: string,
): Response | Promise<Response> | undefined {
  const get = request.method === "GET";
  const post = request.method === "POST";
  if (name === "sign-in") {
    if (get) return showSignIn(ctx, request);
    return post ? submitToken(ctx, request) : notAllowed("GET, POST");
  }
  if (name === "sign-out") {
    if (get) return showSignOut(ctx, request);
    return post ? submitSignOut(ctx, request) : notAllowed("GET, POST");
  }
  if (name === "signed-in") return get ? finishSignIn(ctx, request) : notAllowed("GET");
  return undefined;
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
    return code ? openLink(ctx, request, code, provider) : linkWithoutCode();
  }
  if (action === undefined && method === "POST" && provider === "marketing") {
    return withSession(ctx, request, (s) => submitMarketing(ctx, request, s));
  }
  if (action === undefined) return notAllowed(provider === "marketing" ? "GET, POST" : "GET");
  if (action === "callback" && isOAuthProvider(provider)) {
    if (method !== "GET") return notAllowed("GET");
    // A provider's callback cannot be replayed after signing in: without a session, it is over.
    return withSession(ctx, request, (s) => finishUpstream(ctx, request, provider, s));
  }
  const change = ACCOUNT_FORMS.get(action);
  if (change) {
    if (method !== "POST") return notAllowed("POST");
    return withSession(ctx, request, (s) => change(ctx, request, provider, s));
  }
  return notFound();
}

type AccountForm = (
  ctx: ConnectContext,
  request: Request,
  provider: ProviderId,
  session: SignedInSession,
) => Promise<Response>;

/** The forms of the connections page changing one account: `/connect/<provider>/<action>`. */
const ACCOUNT_FORMS: ReadonlyMap<string, AccountForm> = new Map([
  ["disconnect", disconnect],
  ["rename", rename],
  ["default", makeDefault],
]);

/** Form posts and providers' callbacks need a signed-in session: they cannot be carried through a sign-in. */
async function withSession(
  ctx: ConnectContext,
  request: Request,
  handle: (session: SignedInSession) => Promise<Response>,
): Promise<Response> {
  const session = await currentSession(ctx, request);
  return session ? handle(session) : sessionEnded();
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
