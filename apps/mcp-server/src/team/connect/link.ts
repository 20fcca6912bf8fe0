import { redact } from "@toolkits/core";
import {
  isOAuthProvider,
  type OAuthProviderId,
  PROVIDERS,
  type ProviderId,
} from "../../credentials/providers.js";
import { html } from "../../web/html.js";
import { page } from "../../web/respond.js";
import { messagePage } from "../../web/templates.js";
import { CONNECT_PATH } from "../connections.js";
import type { ConnectContext } from "./context.js";
import { errorText } from "./failures.js";
import { marketingForm } from "./marketing.js";
import { signInKindOf } from "./methods.js";
import { currentSession } from "./session.js";
import { requireSignIn } from "./signin.js";
import { SIGN_OUT_PATH } from "./signout.js";
import { beginUpstream, NotConfigured, type Upstream, upstreamFor } from "./upstream.js";

/**
 * `GET /connect/<provider>?code=…`: the code must be live and for this provider (else the page
 * says so, whoever asks, and nothing is written); a browser not signed in is sent to sign in the
 * way the code's person does, and back. Then the code must be made for the person signed in; only
 * then is it used up (a refusal leaves it for its owner). Then to the provider's consent page, or
 * the App API key form.
 */
export async function openLink(
  ctx: ConnectContext,
  request: Request,
  code: string,
  provider: ProviderId,
): Promise<Response> {
  const owner = await ctx.connections.peek(code);
  if (!owner || owner.provider !== provider) return linkNotValid();
  const session = await currentSession(ctx, request);
  if (!session) {
    const returnTo = `${CONNECT_PATH}/${provider}?code=${encodeURIComponent(code)}`;
    return requireSignIn(ctx, returnTo, signInKindOf(owner.principal));
  }
  if (owner.principal !== session.record.principal) return linkForSomeoneElse();
  // Configuration problems are found before the code is used up, so it still works once fixed.
  let upstream: Upstream | undefined;
  if (isOAuthProvider(provider)) {
    const found = await findUpstream(ctx, provider);
    if (found instanceof Response) return found;
    upstream = found;
  }
  const redeemed = await ctx.connections.redeem(code);
  if (
    !redeemed ||
    redeemed.principal !== owner.principal ||
    redeemed.provider !== provider ||
    redeemed.label !== owner.label
  )
    return linkNotValid();
  return upstream ? beginUpstream(ctx, upstream, redeemed) : marketingForm(session, redeemed.label);
}

async function findUpstream(ctx: ConnectContext, provider: OAuthProviderId): Promise<Upstream | Response> {
  const title = PROVIDERS[provider].title;
  try {
    return await upstreamFor(ctx, provider);
  } catch (error) {
    if (error instanceof NotConfigured) {
      return page(
        503,
        messagePage(
          `${title} cannot be connected here yet`,
          `This server is not set up to connect ${title} accounts: ${error.message}`,
          "Ask whoever runs it; your link keeps working until it expires.",
        ),
      );
    }
    ctx.logger.warn("connect discovery failed", { provider, reason: redact(errorText(error)) });
    return page(
      502,
      messagePage(
        `${title} cannot be reached`,
        `${title}'s authorization server did not answer. Open your link again in a moment.`,
      ),
    );
  }
}

/** The page for a link without a code. */
export const linkWithoutCode = () =>
  page(
    400,
    messagePage(
      "Open the link your agent gave you",
      "This page connects an account when opened through the link your agent gave you, which carries a one-time code.",
    ),
  );

const linkNotValid = () =>
  page(
    410,
    messagePage(
      "This link is no longer valid",
      "It has expired (links work for 10 minutes), was already used, or was never issued. Ask your agent for a new link.",
    ),
  );

const linkForSomeoneElse = () =>
  page(
    403,
    messagePage(
      "This link is not yours",
      "This link was made for someone else; ask your agent for a new link while signed in as yourself.",
      html`If you signed in here as someone else, <a href="${SIGN_OUT_PATH}">sign out</a> and open the link again.`,
    ),
  );
