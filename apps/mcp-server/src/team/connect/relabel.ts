import { isLabel, LABEL_FORM } from "../../credentials/labels.js";
import { PROVIDERS, type ProviderId } from "../../credentials/providers.js";
import type { GrantStore } from "../../credentials/store.js";
import { page } from "../../web/respond.js";
import { messagePage } from "../../web/templates.js";
import { type ConnectContext, principalHash } from "./context.js";
import { listConnections, type Outcome } from "./manage.js";
import { type SignedInSession, sessionForm } from "./session.js";
import { howToDisconnect } from "./templates.js";

/**
 * `POST /connect/<provider>/rename`: gives the account `label` the label `new_label`, which must be
 * one (labels.ts) and not another of the person's accounts there; it stays the default if it was.
 * Connector URLs naming the old label stop reaching it. Answers the connections page, saying what
 * was done or (400) what was refused and why.
 */
export async function rename(
  ctx: ConnectContext,
  request: Request,
  provider: ProviderId,
  session: SignedInSession,
): Promise<Response> {
  return withAccountForm(ctx, request, session, async (grants, label, form) => {
    const wanted = form.get("new_label")?.trim().toLowerCase() ?? "";
    const title = PROVIDERS[provider].title;
    if (!isLabel(wanted))
      return { error: `New label: “${wanted}” is not allowed; use ${LABEL_FORM} characters.` };
    if (wanted === label) return { notice: `The ${title} account is already labelled “${label}”.` };
    const held = await grants.list(provider);
    if (!held.some((each) => each.label === label))
      return { error: `You have no ${title} account labelled “${label}”.` };
    if (held.some((each) => each.label === wanted))
      return { error: `New label: you already use “${wanted}” for another ${title} account.` };
    if (!(await grants.rename(provider, label, wanted)))
      return { error: `Nothing was renamed: your ${title} accounts changed meanwhile. Look again below.` };
    ctx.logger.info("account renamed", { provider, principal: principalHash(session.record.principal) });
    return { notice: `Renamed your ${title} account “${label}” to “${wanted}”.` };
  });
}

/**
 * `POST /connect/<provider>/default`: makes the account `label` the provider's default, the one
 * connector URLs without a label act as.
 */
export async function makeDefault(
  ctx: ConnectContext,
  request: Request,
  provider: ProviderId,
  session: SignedInSession,
): Promise<Response> {
  return withAccountForm(ctx, request, session, async (grants, label) => {
    const title = PROVIDERS[provider].title;
    if (!(await grants.makeDefault(provider, label)))
      return { error: `You have no ${title} account labelled “${label}”.` };
    return { notice: `Your ${title} account “${label}” is now the default.` };
  });
}

/** Runs `change` on a form posted with the session's CSRF token and naming an account's `label`. */
async function withAccountForm(
  ctx: ConnectContext,
  request: Request,
  session: SignedInSession,
  change: (grants: GrantStore, label: string, form: URLSearchParams) => Promise<Outcome>,
): Promise<Response> {
  const form = await sessionForm(session, request);
  const label = form?.get("label");
  if (!form || !label)
    return page(400, messagePage("This form has expired", "Nothing was changed.", howToDisconnect));
  const outcome = await change(ctx.connections.of(session.record.principal), label, form);
  return listConnections(ctx, session, outcome);
}
