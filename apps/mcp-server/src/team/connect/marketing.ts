import { redact, Secret } from "@toolkits/core";
import { API_KEY_SECRET, REGION_SETTING, type Region, resolveUpstream } from "@toolkits/marketing";
import type { KeyGrant } from "../../credentials/grant.js";
import { isLabel, LABEL_FORM, labelFor } from "../../credentials/labels.js";
import type { GrantStore } from "../../credentials/store.js";
import { page } from "../../web/respond.js";
import { messagePage } from "../../web/templates.js";
import { type ConnectContext, principalHash } from "./context.js";
import { type SignedInSession, sessionForm } from "./session.js";
import { connectedPage, marketingFormPage } from "./templates.js";

/** The key check gives up after this long, in milliseconds. */
const CHECK_TIMEOUT_MS = 15_000;
/** App API keys are a few dozen characters; anything this long is not one. */
const MAX_KEY_LENGTH = 512;
/** The cheapest read of the App API (`MarketingApi.ListWorkspaces`): it proves the key works. */
const CHECK_PATH = "/v1/workspaces";
/** A workspace list longer than this is not read for the workspace's name, in characters. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * The App API key form of a signed-in session (after its connect link was used), saving the key
 * under `label` when its link asked for one.
 */
export const marketingForm = (session: SignedInSession, label?: string): Response =>
  page(200, marketingFormPage(session.record.csrf, { label }));

/**
 * How the App API answered the key check: accepted (with the name of the key's workspace when it
 * sees exactly one), refused, or failed.
 */
export type KeyCheck = { accepted: true; workspace?: string } | "refused" | "failed";

/**
 * Sends one read with the key to `MARKETING_API_URL`, else the region's host.
 * `refused` on 401/403; `failed` on any other answer or no answer.
 */
export async function checkKey(ctx: ConnectContext, key: Secret, region: Region): Promise<KeyCheck> {
  const { baseUrl: base } = resolveUpstream({
    setting: (name) => (name === REGION_SETTING ? region : ctx.settings(name)),
  });
  try {
    const response = await ctx.fetch(`${base}${CHECK_PATH}`, {
      headers: { authorization: `Bearer ${key.reveal()}`, accept: "application/json" },
      redirect: "manual",
      signal: AbortSignal.timeout(CHECK_TIMEOUT_MS),
    });
    if (response.ok) return { accepted: true, workspace: await workspaceName(response) };
    await response.body?.cancel();
    return response.status === 401 || response.status === 403 ? "refused" : "failed";
  } catch (error) {
    ctx.logger.warn("marketing key check failed", { reason: redact(String(error)) });
    return "failed";
  }
}

/**
 * The name of the one workspace a `/v1/workspaces` answer lists, to name the account by; undefined
 * for another answer (several workspaces, none, not JSON, over MAX_ANSWER_BYTES): the key works
 * all the same.
 */
async function workspaceName(response: Response): Promise<string | undefined> {
  const text = await response.text().catch(() => "");
  if (text.length > MAX_ANSWER_BYTES) return undefined;
  try {
    const { workspaces } = JSON.parse(text) as { workspaces?: { name?: unknown }[] };
    const name = Array.isArray(workspaces) && workspaces.length === 1 ? workspaces[0]?.name : undefined;
    return typeof name === "string" && name.trim() ? name.trim().slice(0, 100) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The label of a new key of the workspace `grant.account`: its name and region (`main-us`), the
 * label it already has when that workspace and region are connected, numbered when another holds
 * it; undefined without a workspace name (the store names the account then).
 */
async function workspaceLabel(grants: GrantStore, grant: KeyGrant): Promise<string | undefined> {
  if (!grant.account) return undefined;
  const named = (each: { account?: string; region?: string }) =>
    each.account && `${each.account} ${each.region ?? "us"}`;
  const held = (await grants.list("marketing")).map((each) => [each.label ?? "", named(each)] as const);
  return labelFor(named(grant), new Map(held));
}

/**
 * `POST /connect/marketing`: checks the CSRF token, then the key (one read call), and stores it.
 * A refused key is not stored and the form says so; it is never shown back.
 */
export async function submitMarketing(
  ctx: ConnectContext,
  request: Request,
  session: SignedInSession,
): Promise<Response> {
  const form = await sessionForm(session, request);
  if (!form) {
    return page(
      400,
      messagePage(
        "This form has expired",
        "Ask your agent for a new link to connect the Customer.io App API.",
      ),
    );
  }
  const region = form.get("region");
  const value = form.get("api_key")?.trim() ?? "";
  const asked = form.get("label") || undefined;
  const label = asked !== undefined && isLabel(asked) ? asked : undefined;
  const again = (status: number, error: string) =>
    page(status, marketingFormPage(session.record.csrf, { error, region: region ?? undefined, label }));
  if (asked !== label) return again(400, `The account label “${asked}” is not one (${LABEL_FORM}).`);
  if (region !== "us" && region !== "eu")
    return again(400, "Pick the region of the key's workspace: US or EU.");
  if (!value || value.length > MAX_KEY_LENGTH || /\s/.test(value)) {
    return again(400, "Paste an App API key: one word of letters and digits.");
  }
  // Anyone signed in can paste anything here: not a credential until the App API accepts it, and
  // redaction learns the key only where it is used, in the person's own calls (withSecretScope).
  const key = new Secret(API_KEY_SECRET, value, { register: false });
  const check = await checkKey(ctx, key, region);
  if (check === "refused") {
    return again(
      400,
      `Customer.io refused the key in the ${region.toUpperCase()} region. Check that it is an App API key (not a Track API key) of a workspace in that region.`,
    );
  }
  if (check === "failed") {
    return again(
      502,
      "The key could not be checked: Customer.io did not answer as expected, so nothing was saved. Try again in a moment.",
    );
  }
  const grants = ctx.connections.of(session.record.principal);
  const account = check.workspace;
  const grant: KeyGrant = {
    provider: "marketing",
    connectedAt: Date.now(),
    apiKey: key,
    region,
    ...(account ? { account } : {}),
  };
  const saved = await grants.save({ ...grant, label: label ?? (await workspaceLabel(grants, grant)) });
  ctx.logger.info("connected", { provider: "marketing", principal: principalHash(session.record.principal) });
  return page(200, connectedPage({ ...grant, label: saved }));
}
