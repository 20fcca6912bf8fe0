import { csrfMatches } from "../../web/csrf.js";
import { page, readForm, redirect } from "../../web/respond.js";
import { messagePage } from "../../web/templates.js";
import { CONNECT_PATH } from "../connections.js";
import type { ConnectContext } from "./context.js";
import { logSignInRefusal } from "./failures.js";
import type { SignInKind } from "./methods.js";
import { startOidc } from "./oidc.js";
import { newPending } from "./pending.js";
import { currentPending, currentSession, pendingCookie, safeReturnPath, signIn } from "./session.js";
import { tokenSignInPage } from "./templates.js";

export const SIGN_IN_PATH = `${CONNECT_PATH}/sign-in`;

/**
 * Sends a browser that is not signed in to sign in, then back to `returnTo` (a path on this server,
 * carried in the browser's sealed cookie: it may hold a connect code). `kind` is how the person the
 * page is for signs in, when known (a connect link's owner): where both ways are set up, that way;
 * without it, the browser is offered both. Writes nothing to the store.
 */
export async function requireSignIn(
  ctx: ConnectContext,
  returnTo: string,
  kind?: SignInKind,
): Promise<Response> {
  const { oidc, token, missing } = ctx.methods;
  const pending = newPending(safeReturnPath(returnTo));
  if (oidc && (kind === "oidc" || !token)) return startOidc(ctx, oidc, pending);
  if (token) return redirect(`${ctx.base}${SIGN_IN_PATH}`, 302, { cookie: pendingCookie(ctx, pending) });
  return notConfigured(missing ?? "");
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

/**
 * `GET /connect/sign-in`: the token form (with a link to the identity provider where there is one
 * too), or straight to the identity provider (`?with=idp`, or when it is the only way).
 */
export async function showSignIn(ctx: ConnectContext, request: Request): Promise<Response> {
  if (await currentSession(ctx, request)) return redirect(`${ctx.base}${CONNECT_PATH}`, 302);
  const { oidc, token, missing } = ctx.methods;
  const pending = currentPending(ctx, request);
  const viaIdp = new URL(request.url).searchParams.get("with") === "idp";
  if (oidc && (viaIdp || !token)) return startOidc(ctx, oidc, newPending(pending?.returnTo ?? CONNECT_PATH));
  if (!token) return notConfigured(missing ?? "");
  const shown = pending ?? newPending(CONNECT_PATH);
  const form = tokenSignInPage(shown.csrf, { idp: oidc !== undefined });
  return page(200, form, pending ? {} : { cookie: pendingCookie(ctx, shown) });
}

/** `POST /connect/sign-in`: checks the posted token and signs the browser in as its owner. */
export async function submitToken(ctx: ConnectContext, request: Request): Promise<Response> {
  const { oidc, token } = ctx.methods;
  if (!token) return redirect(`${ctx.base}${SIGN_IN_PATH}`, 303);
  const pending = currentPending(ctx, request);
  const form = await readForm(request);
  if (!pending || !form || !csrfMatches(pending.csrf, form)) {
    logSignInRefusal(
      ctx,
      pending?.returnTo,
      "the token form was not the one shown to this browser",
      "form_expired",
    );
    return formExpired();
  }
  const principal = token(form.get("token")?.trim() ?? "");
  if (!principal) {
    logSignInRefusal(ctx, pending.returnTo, "the token posted is not one this server knows", "unknown_token");
    const error = "That token is not one this server knows.";
    return page(401, tokenSignInPage(pending.csrf, { error, idp: oidc !== undefined }));
  }
  return signIn(ctx, principal, principal.replace(/^token:/, ""), pending);
}

const formExpired = () =>
  page(
    400,
    messagePage(
      "This form has expired",
      "Open the link your agent gave you again (or this server's /connect page) to start over.",
    ),
  );
