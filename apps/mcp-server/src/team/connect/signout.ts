import { page } from "../../web/respond.js";
import { messagePage } from "../../web/templates.js";
import { CONNECT_PATH } from "../connections.js";
import type { ConnectContext } from "./context.js";
import { currentSession, endSession, sessionForm } from "./session.js";
import { signOutPage } from "./templates.js";

export const SIGN_OUT_PATH = `${CONNECT_PATH}/sign-out`;

/** `GET /connect/sign-out`: the sign-out button (a form: it takes the session's CSRF token). */
export async function showSignOut(ctx: ConnectContext, request: Request): Promise<Response> {
  const session = await currentSession(ctx, request);
  if (!session) return signedOut();
  const { display, principal, csrf } = session.record;
  return page(200, signOutPage(display ?? principal, csrf));
}

/**
 * `POST /connect/sign-out`: ends the session in the store and clears the browser's cookie, and
 * the built-in authorization server's session of the browser too, so whoever uses it next signs
 * in as themselves there. The person's connections stay: their agent keeps acting with them.
 */
export async function submitSignOut(ctx: ConnectContext, request: Request): Promise<Response> {
  const session = await currentSession(ctx, request);
  if (!session) return signedOut();
  if (!(await sessionForm(session, request))) {
    return page(
      400,
      messagePage("This form has expired", "You are still signed in. Open the sign-out page again."),
    );
  }
  const cleared = await endSession(ctx, session);
  return signedOut([cleared, ...((await ctx.authorization?.endSession(request)) ?? [])]);
}

const signedOut = (cookie?: readonly string[]) =>
  page(
    200,
    messagePage(
      "Signed out",
      "This browser is not signed in here. Your connected accounts stay connected for your agent.",
      `Open ${CONNECT_PATH} on this server to sign in again.`,
    ),
    { cookie },
  );
