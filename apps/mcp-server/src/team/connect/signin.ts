import { redact, Secret } from "@toolkits/core";
import * as oauth from "openid-client";
import { describeOAuthError, discover, type OAuthClient } from "../../credentials/oauth.js";
import { CONNECT_PATH } from "../connections.js";
import type { ConnectContext } from "./context.js";
import { peekFlow, saveFlow, takeFlow } from "./flows.js";
import { page, readForm, redirect } from "./respond.js";
import {
  csrfMatches,
  currentSession,
  endSession,
  isSignedIn,
  newSession,
  PENDING_TTL_MS,
  SESSION_TTL_MS,
  type Session,
} from "./session.js";
import { messagePage, tokenSignInPage } from "./templates.js";

/** Where the identity provider sends the browser back to. */
export const SIGNED_IN_PATH = `${CONNECT_PATH}/signed-in`;
export const SIGN_IN_PATH = `${CONNECT_PATH}/sign-in`;

/** How a browser proves who it is: the team's OpenID Connect issuer, else a named static token. */
type Method =
  | { kind: "oidc"; issuer: string; client: OAuthClient }
  | { kind: "token"; identify: (token: string) => string | undefined }
  | { kind: "none"; reason: string };

function signInMethod(ctx: ConnectContext): Method {
  const { issuer, connectClient } = ctx;
  const { id: clientId, secret } = connectClient;
  if (issuer && clientId) {
    const client = {
      id: clientId,
      secret: secret ? new Secret("MCP_CONNECT_CLIENT_SECRET", secret) : undefined,
    };
    return { kind: "oidc", issuer, client };
  }
  if (ctx.identifyToken) return { kind: "token", identify: ctx.identifyToken };
  return {
    kind: "none",
    reason: issuer
      ? "MCP_CONNECT_CLIENT_ID (and MCP_CONNECT_CLIENT_SECRET) is not set: register this server as a client of the identity provider."
      : "neither MCP_OAUTH_ISSUER nor named tokens (MCP_HTTP_BEARER_TOKENS=name:token) are set.",
  };
}

/** Only paths of these pages are destinations after sign-in: never another site. */
export function safeReturnPath(path: string | undefined): string {
  return path && /^\/connect(?:[/?]|$)/.test(path) && !path.startsWith("//") ? path : CONNECT_PATH;
}

/**
 * Sends a browser without a session to sign in, remembering `returnTo` (a path under /connect,
 * stored server-side: it may hold a connect code) to come back to afterwards.
 */
export async function requireSignIn(ctx: ConnectContext, returnTo: string): Promise<Response> {
  const method = signInMethod(ctx);
  if (method.kind === "oidc") return startOidc(ctx, method, returnTo);
  if (method.kind === "token") {
    const { cookie } = await newSession(ctx, { returnTo: safeReturnPath(returnTo) }, PENDING_TTL_MS);
    return redirect(`${ctx.base}${SIGN_IN_PATH}`, 302, { cookie });
  }
  return notConfigured(method.reason);
}

const notConfigured = (reason: string) =>
  page(
    503,
    messagePage(
      "Sign-in is not set up",
      `This server cannot tell who you are: ${reason}`,
      "Ask whoever runs it.",
    ),
  );

async function oidcConfiguration(ctx: ConnectContext, method: Extract<Method, { kind: "oidc" }>) {
  return ctx.configuration(`sign-in ${method.issuer} ${method.client.id}`, () =>
    discover(method.issuer, method.client),
  );
}

async function startOidc(
  ctx: ConnectContext,
  method: Extract<Method, { kind: "oidc" }>,
  returnTo: string,
): Promise<Response> {
  const config = await oidcConfiguration(ctx, method);
  const { session, cookie } = await newSession(ctx, {}, PENDING_TTL_MS);
  const verifier = oauth.randomPKCECodeVerifier();
  const state = oauth.randomState();
  const nonce = oauth.randomNonce();
  await saveFlow(ctx.store, state, {
    kind: "sign-in",
    session: session.key,
    verifier,
    nonce,
    returnTo: safeReturnPath(returnTo),
  });
  const url = oauth.buildAuthorizationUrl(config, {
    redirect_uri: `${ctx.base}${SIGNED_IN_PATH}`,
    scope: "openid email",
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
    nonce,
  });
  return redirect(url.href, 302, { cookie });
}

/** `GET /connect/sign-in`: the token form, or straight to the identity provider. */
export async function showSignIn(ctx: ConnectContext, request: Request): Promise<Response> {
  const session = await currentSession(ctx, request);
  if (isSignedIn(session)) return redirect(`${ctx.base}${safeReturnPath(session.record.returnTo)}`, 302);
  const method = signInMethod(ctx);
  if (method.kind === "oidc") return startOidc(ctx, method, session?.record.returnTo ?? CONNECT_PATH);
  if (method.kind === "none") return notConfigured(method.reason);
  if (session) return page(200, tokenSignInPage(session.record.csrf));
  const fresh = await newSession(ctx, { returnTo: CONNECT_PATH }, PENDING_TTL_MS);
  return page(200, tokenSignInPage(fresh.session.record.csrf), { cookie: fresh.cookie });
}

/** `POST /connect/sign-in`: checks the posted token and signs the browser in as its owner. */
export async function submitToken(ctx: ConnectContext, request: Request): Promise<Response> {
  const method = signInMethod(ctx);
  if (method.kind !== "token") return redirect(`${ctx.base}${SIGN_IN_PATH}`, 303);
  const session = await currentSession(ctx, request);
  const form = await readForm(request);
  if (!session || isSignedIn(session) || !form || !csrfMatches(session, form)) return formExpired();
  const principal = method.identify(form.get("token")?.trim() ?? "");
  if (!principal) {
    return page(401, tokenSignInPage(session.record.csrf, "That token is not one this server knows."));
  }
  return signIn(ctx, session, principal, principal.replace(/^token:/, ""), session.record.returnTo);
}

const formExpired = () =>
  page(
    400,
    messagePage(
      "This form has expired",
      "Open the link your agent gave you again (or this server's /connect page) to start over.",
    ),
  );

/** Replaces the browser's pending session with a signed-in one under a new id, then goes on. */
async function signIn(
  ctx: ConnectContext,
  pending: Session,
  principal: string,
  display: string,
  returnTo: string | undefined,
): Promise<Response> {
  await endSession(ctx, pending);
  const { cookie } = await newSession(ctx, { principal, display }, SESSION_TTL_MS);
  return redirect(`${ctx.base}${safeReturnPath(returnTo)}`, 303, { cookie });
}

/** `GET /connect/signed-in`: the identity provider's answer; only the browser that started may finish. */
export async function finishSignIn(ctx: ConnectContext, request: Request): Promise<Response> {
  const method = signInMethod(ctx);
  const url = new URL(request.url);
  const state = url.searchParams.get("state");
  const flow = state ? await peekFlow(ctx.store, state) : undefined;
  if (method.kind !== "oidc" || !state || flow?.kind !== "sign-in") return signInExpired();
  const session = await currentSession(ctx, request);
  if (!session || session.key !== flow.session) {
    return page(
      400,
      messagePage(
        "Sign-in started elsewhere",
        "This sign-in was started in another browser, or this browser's session ended. Open your link again here.",
      ),
    );
  }
  if (!(await takeFlow(ctx.store, state))) return signInExpired();
  const config = await oidcConfiguration(ctx, method);
  // The redirect URI as registered, whatever host name the request arrived under.
  const callback = new URL(`${ctx.base}${SIGNED_IN_PATH}${url.search}`);
  let claims: oauth.IDToken | undefined;
  try {
    const response = await oauth.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: flow.verifier,
      expectedState: state,
      expectedNonce: flow.nonce,
    });
    claims = response.claims();
  } catch (error) {
    return signInFailed(ctx, error);
  }
  if (!claims) return signInFailed(ctx, new Error("the identity provider sent no ID token"));
  const email = typeof claims.email === "string" ? claims.email : undefined;
  return signIn(ctx, session, `${claims.iss}#${claims.sub}`, email ?? claims.sub, flow.returnTo);
}

const signInExpired = () =>
  page(
    400,
    messagePage(
      "This sign-in has expired",
      "It took too long, or it was already finished. Open the link your agent gave you again.",
    ),
  );

function signInFailed(ctx: ConnectContext, error: unknown): Response {
  if (error instanceof oauth.AuthorizationResponseError) {
    return page(
      403,
      messagePage(
        "Not signed in",
        `The identity provider did not sign you in (${oauthErrorCode(error)}).`,
        "Open your link again to retry.",
      ),
    );
  }
  ctx.logger.warn("connect sign-in failed", { reason: redact(errorText(error)) });
  return page(
    502,
    messagePage(
      "Signing in failed",
      "The identity provider's answer could not be used. Open your link again to retry.",
    ),
  );
}

/**
 * The error code of an authorization response, for a page. Its description is left out: it
 * arrives in the callback URL, so anyone could write it.
 */
export const oauthErrorCode = (error: oauth.AuthorizationResponseError): string =>
  /^[\w.-]{1,64}$/.test(error.error) ? error.error : "an unexpected error";

export const errorText = (error: unknown): string =>
  error instanceof oauth.ResponseBodyError
    ? describeOAuthError(error)
    : error instanceof Error
      ? error.message
      : String(error);
