import * as oauth from "openid-client";
import { discover } from "../../credentials/oauth.js";
import { page, redirect } from "../../web/respond.js";
import { messagePage } from "../../web/templates.js";
import { CONNECT_PATH } from "../connections.js";
import { keepIdentity } from "../identity.js";
import type { ConnectContext } from "./context.js";
import { exchangeFailure, logSignInRefusal, oauthErrorCode } from "./failures.js";
import type { OidcMethod } from "./methods.js";
import type { Pending } from "./pending.js";
import { currentPending, pendingCookie, signIn } from "./session.js";

/** Where the identity provider sends the browser back to. */
export const SIGNED_IN_PATH = `${CONNECT_PATH}/signed-in`;

function configuration(ctx: ConnectContext, method: OidcMethod) {
  return ctx.configuration(`sign-in ${method.issuer} ${method.client.id}`, () =>
    discover(method.issuer, method.client),
  );
}

/**
 * Sends the browser to the identity provider: code flow with PKCE (S256), `state` and `nonce`,
 * all three kept in the browser's sealed cookie with `pending` for the way back.
 */
export async function startOidc(
  ctx: ConnectContext,
  method: OidcMethod,
  pending: Pending,
): Promise<Response> {
  const config = await configuration(ctx, method);
  const oidc = {
    verifier: oauth.randomPKCECodeVerifier(),
    state: oauth.randomState(),
    nonce: oauth.randomNonce(),
  };
  // A refresh token lets the server ask again later whether the person may still sign in (see
  // identity.ts); providers that name `offline_access` grant one only when it is asked for.
  const offline = config.serverMetadata().scopes_supported?.includes("offline_access");
  const url = oauth.buildAuthorizationUrl(config, {
    redirect_uri: `${ctx.base}${SIGNED_IN_PATH}`,
    scope: offline ? "openid email offline_access" : "openid email",
    code_challenge: await oauth.calculatePKCECodeChallenge(oidc.verifier),
    code_challenge_method: "S256",
    state: oidc.state,
    nonce: oidc.nonce,
  });
  return redirect(url.href, 302, { cookie: pendingCookie(ctx, { ...pending, oidc }) });
}

/** `GET /connect/signed-in`: the identity provider's answer; only the browser that started may finish. */
export async function finishSignIn(ctx: ConnectContext, request: Request): Promise<Response> {
  const { oidc: method } = ctx.methods;
  const url = new URL(request.url);
  const state = url.searchParams.get("state");
  const pending = currentPending(ctx, request);
  if (!method || !state || !pending?.oidc) {
    logSignInRefusal(
      ctx,
      pending?.returnTo,
      "the identity provider's answer came to a browser with no sign-in under way",
      "expired",
    );
    return signInExpired();
  }
  if (pending.oidc.state !== state) {
    logSignInRefusal(
      ctx,
      pending.returnTo,
      "the identity provider's answer is for a sign-in another browser started",
      "started_elsewhere",
    );
    return startedElsewhere();
  }
  const config = await configuration(ctx, method);
  // The redirect URI as registered, whatever host name the request arrived under.
  const callback = new URL(`${ctx.base}${SIGNED_IN_PATH}${url.search}`);
  let claims: oauth.IDToken | undefined;
  let refreshToken: string | undefined;
  try {
    const response = await oauth.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: pending.oidc.verifier,
      expectedState: state,
      expectedNonce: pending.oidc.nonce,
    });
    claims = response.claims();
    refreshToken = response.refresh_token;
  } catch (error) {
    return signInFailed(ctx, pending, error);
  }
  if (!claims) return signInFailed(ctx, pending, new Error("the identity provider sent no ID token"));
  const principal = `${claims.iss}#${claims.sub}`;
  if (refreshToken) await keepIdentity(ctx.store, principal, refreshToken);
  const email = typeof claims.email === "string" ? claims.email : undefined;
  return signIn(ctx, principal, email ?? claims.sub, pending);
}

const signInExpired = () =>
  page(
    400,
    messagePage(
      "This sign-in has expired",
      "It took too long, or it was already finished. Open the link your agent gave you again.",
    ),
  );

const startedElsewhere = () =>
  page(
    400,
    messagePage(
      "Sign-in started elsewhere",
      "This sign-in was started in another browser or tab, or this browser started another since. Open your link again here.",
    ),
  );

function signInFailed(ctx: ConnectContext, pending: Pending, error: unknown): Response {
  if (error instanceof oauth.AuthorizationResponseError) {
    const reason = `the identity provider did not sign the person in (${oauthErrorCode(error)})`;
    logSignInRefusal(ctx, pending.returnTo, reason, "idp_refused");
    return page(
      403,
      messagePage(
        "Not signed in",
        `The identity provider did not sign you in (${oauthErrorCode(error)}).`,
        "Open your link again to retry.",
      ),
    );
  }
  ctx.logger.warn("connect sign-in failed", exchangeFailure(error));
  return page(
    502,
    messagePage(
      "Signing in failed",
      "The identity provider's answer could not be used. Open your link again to retry.",
    ),
  );
}
