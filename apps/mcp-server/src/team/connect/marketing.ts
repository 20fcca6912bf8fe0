import { redact, Secret } from "@toolkits/core";
import { API_KEY_SECRET, REGION_SETTING, type Region, resolveUpstream } from "@toolkits/marketing";
import type { KeyGrant } from "../../credentials/grant.js";
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

/** The App API key form of a signed-in session (after its connect link was used). */
export const marketingForm = (session: SignedInSession): Response =>
  page(200, marketingFormPage(session.record.csrf));

/** How the App API answered the key check. */
export type KeyCheck = "accepted" | "refused" | "failed";

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
    await response.body?.cancel();
    if (response.status === 401 || response.status === 403) return "refused";
    return response.ok ? "accepted" : "failed";
  } catch (error) {
    ctx.logger.warn("marketing key check failed", { reason: redact(String(error)) });
    return "failed";
  }
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
  const again = (status: number, error: string) =>
    page(status, marketingFormPage(session.record.csrf, { error, region: region ?? undefined }));
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
  const grant: KeyGrant = { provider: "marketing", connectedAt: Date.now(), apiKey: key, region };
  await ctx.connections.of(session.record.principal).save(grant);
  ctx.logger.info("connected", { provider: "marketing", principal: principalHash(session.record.principal) });
  return page(200, connectedPage(grant));
}
