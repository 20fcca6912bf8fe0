import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "@toolkits/core";
import type { Provider } from "oidc-provider";
import { accountsNamed } from "../../connectors/selection.js";
import { type AccountChoice, NO_CHOICE } from "../../credentials/labels.js";
import { PROVIDER_IDS, PROVIDERS } from "../../credentials/providers.js";
import { sendResponse } from "../../http/respond.js";
import { readBody } from "../../pages.js";
import { telemetry } from "../../telemetry/index.js";
import { TOOLKITS } from "../../toolkits.js";
import { cookieName, cookieRequest, cookieValues, setCookie } from "../../web/cookies.js";
import { csrfMatches, newCsrfToken } from "../../web/csrf.js";
import { page, redirect, SECURITY_HEADERS } from "../../web/respond.js";
import type { CookieSealer } from "../../web/sealed-cookies.js";
import { messagePage } from "../../web/templates.js";
import type { Connections } from "../connections.js";
import type { TeamStore } from "../store/index.js";
import { isLoopback } from "./clients.js";
import { type Approval, approved, metadataDigest, remember } from "./consent.js";
import { consentPage } from "./consent-page.js";
import { INTERACTION_PATH } from "./provider.js";
import { logRefusal } from "./refusals.js";

/** What a browser carries between seeing the consent page and answering it, sealed. */
export interface ConsentCookie {
  /** The interaction it was shown for, and the client: the answer counts for these only. */
  uid: string;
  clientId: string;
  csrf: string;
  expiresAt: number;
}

export interface InteractionDeps {
  provider: Provider;
  store: TeamStore;
  connections: Connections;
  /** Who the browser is signed in as at /connect, and how to send it to sign in (see connect/index.ts). */
  personOf(request: Request): Promise<string | undefined>;
  signIn(returnTo: string): Promise<Response>;
  /** The MCP URL: the resource when a client names none (connector URLs beneath it narrow it). */
  resource: string;
  /** The scopes granted when a client asks for none. */
  scopes: readonly string[];
  /** Whether cookies get `Secure` and the `__Host-` prefix (the public URL is https). */
  secure: boolean;
  consentCookies: CookieSealer<ConsentCookie>;
  logo(uri: string | undefined): Promise<string | undefined>;
  /** Where refused steps are logged (see refusals.ts). */
  logger: Logger;
}

/** How long the consent page's answer is taken, in milliseconds (10 minutes). */
const CONSENT_TTL_MS = 10 * 60_000;
const MAX_FORM_BYTES = 4_096;

/**
 * The interaction pages of the authorization server: `GET /oauth/interaction/<uid>` signs the
 * browser in (as /connect does: at the team's identity provider or with a named token, then back
 * here) and shows the consent page, unless the same person approved the same, unchanged client at
 * the same redirect URI for these scopes before (and `prompt=consent` was not asked); `POST
 * /oauth/interaction/<uid>/consent` takes the answer, only from the browser the page was shown to
 * (its sealed `__Host-` cookie, bound to this interaction and client, and the form's CSRF token).
 * oidc-provider's own interaction cookie binds every step to that browser too: a code is only ever
 * issued to the browser that consented.
 */
export function interactions(deps: InteractionDeps) {
  return async (req: IncomingMessage, res: ServerResponse, uid: string, action: string | undefined) => {
    const details = await deps.provider.interactionDetails(req, res).catch(() => undefined);
    const step = action === undefined ? "sign-in" : "consent";
    const refuse = (reason: string, cause: string) => {
      const clientId = (details?.params as { client_id?: string } | undefined)?.client_id;
      logRefusal(deps.logger, step, { clientId, reason, cause });
      return sendResponse(res, expired());
    };
    if (!details || details.uid !== uid)
      return refuse(
        "the authorization is over: it expired, was finished, or was started in another browser",
        "expired",
      );
    const accountId = details.session?.accountId;
    // Who the browser is signed in as at /connect now: the person consenting must still be them.
    const person = await deps.personOf(cookieRequest(req));
    if (!person && action === undefined)
      return sendResponse(res, await deps.signIn(`${INTERACTION_PATH}/${uid}`));
    if (details.prompt.name === "login" || !accountId) {
      if (action !== undefined || !person)
        return refuse("the consent form was posted before signing in", "not_signed_in");
      const login = { login: { accountId: person } };
      return deps.provider.interactionFinished(req, res, login, { mergeWithLastSubmission: false });
    }
    if (person !== accountId)
      return refuse(
        "the browser is now signed in at /connect as someone else than who started the authorization",
        "other_person",
      );
    if (action !== undefined && action !== "consent")
      return refuse(`no such step: ${action.slice(0, 40)}`, "no_such_step");
    return consentStep(deps, req, res, details, action === "consent");
  };
}

type Details = Awaited<ReturnType<Provider["interactionDetails"]>>;

/** The consent prompt: its page, or its answer (`answering`), or none when approved before. */
async function consentStep(
  deps: InteractionDeps,
  req: IncomingMessage,
  res: ServerResponse,
  details: Details,
  answering: boolean,
): Promise<void> {
  const params = details.params as Record<string, string | undefined>;
  const client = await deps.provider.Client.find(params.client_id ?? "");
  if (!client) return sendResponse(res, expired());
  const approval: Approval = {
    principal: String(details.session?.accountId),
    clientId: client.clientId,
    redirectUri: params.redirect_uri ?? "",
    // The authorization endpoint has checked it (see getResourceServerInfo in provider.ts).
    resource: params.resource ?? deps.resource,
    scopes: (params.scope ?? "").split(" ").filter((scope) => deps.scopes.includes(scope)),
    metadata: metadataDigest(client.metadata()),
  };
  const name = client.clientName ?? client.clientId;
  const grant = (granted: readonly string[]) =>
    grantAndReturn(deps, req, res, { ...approval, scopes: granted }, approval.scopes, name);
  if (answering) return answer(deps, req, res, details.uid, approval, grant);
  const forced = (params.prompt ?? "").split(" ").includes("consent");
  if (!forced && (await approved(deps.store, approval))) return grant(approval.scopes);
  return sendResponse(res, await showConsent(deps, details.uid, approval, client));
}

/**
 * `POST …/consent`: allow (the scopes ticked, of those asked) or deny, from the browser the page
 * was shown to. Allowing none is denying.
 */
async function answer(
  deps: InteractionDeps,
  req: IncomingMessage,
  res: ServerResponse,
  uid: string,
  approval: Approval,
  grant: (granted: readonly string[]) => Promise<void>,
): Promise<void> {
  const body = await readBody(req, MAX_FORM_BYTES);
  const form = new URLSearchParams(body?.toString("utf8") ?? "");
  const shown = cookieValues(req.headers.cookie, consentCookieName(deps.secure))
    .map((value) => deps.consentCookies.open(value))
    .find((cookie) => cookie?.uid === uid && cookie.clientId === approval.clientId);
  if (!shown || !csrfMatches(shown.csrf, form)) {
    const reason = "the consent form was not the one shown to this browser (its cookie or CSRF token)";
    logRefusal(deps.logger, "consent", { clientId: approval.clientId, reason, cause: "form_expired" });
    return sendResponse(res, formExpired());
  }
  const ticked = new Set(form.getAll("scope"));
  const granted = approval.scopes.filter((scope) => ticked.has(scope));
  if (form.get("decision") !== "allow" || !granted.length) {
    const denied = { error: "access_denied", error_description: "The person did not allow access." };
    return deps.provider.interactionFinished(req, res, denied, { mergeWithLastSubmission: false });
  }
  return grant(granted);
}

/**
 * Grants `approval` (a new grant for its resource and scopes; the others `asked` are recorded
 * as refused, so the authorization goes on without them), remembers it, and resumes the authorization.
 */
async function grantAndReturn(
  deps: InteractionDeps,
  req: IncomingMessage,
  res: ServerResponse,
  approval: Approval,
  asked: readonly string[],
  name: string,
): Promise<void> {
  const grant = new deps.provider.Grant({ accountId: approval.principal, clientId: approval.clientId });
  grant.addResourceScope(approval.resource, approval.scopes.join(" "));
  const refused = asked.filter((scope) => !approval.scopes.includes(scope));
  if (refused.length) grant.rejectResourceScope(approval.resource, refused.join(" "));
  const grantId = await grant.save();
  // Consent given now, or given before for the same client, redirect URI and scopes.
  telemetry()?.authStep("consent", "ok");
  await remember(deps.store, approval, { name, grantId });
  const returnTo = await deps.provider.interactionResult(req, res, { consent: { grantId } });
  const cleared = consentCookie(deps.secure, "", 0);
  await sendResponse(res, redirect(returnTo, 303, { cookie: cleared }));
}

type FoundClient = NonNullable<Awaited<ReturnType<Provider["Client"]["find"]>>>;

async function showConsent(
  deps: InteractionDeps,
  uid: string,
  approval: Approval,
  client: FoundClient,
): Promise<Response> {
  const csrf = newCsrfToken();
  const sealed = deps.consentCookies.seal({
    uid,
    clientId: approval.clientId,
    csrf,
    expiresAt: Date.now() + CONSENT_TTL_MS,
  });
  const redirectUris = client.redirectUris ?? [];
  const target = URL.parse(approval.redirectUri);
  const document = client.clientId.startsWith("https://");
  const body = consentPage({
    who: displayName(approval.principal),
    clientName: client.clientName ?? client.clientId,
    clientOrigin: document
      ? { kind: "document", host: new URL(client.clientId).host }
      : { kind: "registered" },
    redirectHost: target?.host || target?.protocol || approval.redirectUri,
    loopbackOnly: redirectUris.every((uri) => isLoopback(URL.parse(uri)?.hostname ?? "")),
    logo: await deps.logo(client.logoUri),
    scopes: approval.scopes,
    connections: await connectionItems(
      deps,
      approval.principal,
      accountsOf(approval.resource, deps.resource),
    ),
    csrf,
    action: `${INTERACTION_PATH}/${uid}/consent`,
  });
  const formTarget = target && (target.origin !== "null" ? target.origin : target.protocol);
  const csp = SECURITY_HEADERS["content-security-policy"]
    ?.replace("form-action 'self'", `form-action 'self' ${formTarget ?? ""}`.trim())
    .replace("default-src 'none';", "default-src 'none'; img-src data:;");
  return page(200, body, {
    cookie: consentCookie(deps.secure, sealed, CONSENT_TTL_MS / 1000),
    headers: csp ? { "content-security-policy": csp } : {},
  });
}

/**
 * The accounts the connector URL `resource` names beneath the MCP URL `mcp` (`…/mcp/pager@eu`:
 * PagerDuty's “eu”), by provider; none for the MCP URL itself or a URL naming none.
 */
function accountsOf(resource: string, mcp: string): AccountChoice {
  const path = URL.parse(resource)?.pathname ?? "";
  const beneath = `${URL.parse(mcp)?.pathname ?? "/mcp"}/`;
  if (!path.startsWith(beneath)) return NO_CHOICE;
  try {
    return accountsNamed(path.slice(beneath.length), Object.values(TOOLKITS));
  } catch {
    return NO_CHOICE; // The authorization endpoint took the resource; a URL it refuses names none.
  }
}

/**
 * At each provider, the person's account the client will act as (the one `chosen` names, else the
 * default, which `list` gives first), or a fresh connect link for it, carrying the chosen label.
 */
async function connectionItems(deps: InteractionDeps, principal: string, chosen: AccountChoice) {
  const grants = await deps.connections.list(principal);
  return Promise.all(
    PROVIDER_IDS.map(async (provider) => {
      const label = chosen[provider];
      const grant = grants.find(
        (each) => each.provider === provider && (label === undefined || each.label === label),
      );
      const title = PROVIDERS[provider].title;
      if (grant) return { title, label, account: grant.account };
      return { title, label, link: (await deps.connections.link(principal, provider, label)).url };
    }),
  );
}

/** The consent cookie, bound to one interaction (`__Host-` over https). */
const consentCookieName = (secure: boolean) => cookieName("toolkits_consent", secure);

const consentCookie = (secure: boolean, value: string, maxAgeS: number): string =>
  setCookie(consentCookieName(secure), value, maxAgeS, secure);

/** How the consent page names the person: the subject or token name, not the issuer. */
const displayName = (principal: string) => principal.replace(/^token:/, "").replace(/^.*#/, "");

const expired = () =>
  page(
    400,
    messagePage(
      "This authorization has expired",
      "It took too long, was already finished, was started in another browser, or this browser is now signed in as someone else. Go back to your client and connect again.",
    ),
  );

const formExpired = () =>
  page(
    400,
    messagePage("This form has expired", "Nothing was allowed. Go back to your client and connect again."),
  );
