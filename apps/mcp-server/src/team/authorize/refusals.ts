import type { Logger } from "@toolkits/core";
import type { KoaContextWithOIDC, Provider } from "oidc-provider";
import { telemetry } from "../../telemetry/index.js";

/** The steps of connecting a client that the server may refuse, as the log names them. */
export type RefusedStep =
  | "sign-in"
  | "registration"
  | "metadata-document"
  | "authorization"
  | "consent"
  | "token"
  | "refresh";

/** What one refusal line says: the client, why, and anything else that helps (never a secret). */
export interface Refusal {
  /** The client's id (a metadata document's URL, or the id registration gave); absent before one is known. */
  clientId?: string;
  /** Why, in words an operator can act on. */
  reason: string;
  /** The OAuth error code answered, when there was one (`invalid_grant`, …). */
  error?: string;
  /**
   * Why, as one short fixed word (`expired`, `unknown_token`, …) where there is no OAuth error
   * code: what the metrics count the refusal under.
   */
  cause?: string;
}

/** An OAuth error code (RFC 6749 §5.2: lower case words joined by `_`); anything else is no metric label. */
const ERROR_CODE = /^[a-z_]{1,40}$/;

/**
 * Logs one refusal at `info`, once per refused request, so "the client cannot connect" can be
 * diagnosed from the log alone: `{"msg":"oauth refused","step":"refresh","client_id":…,"reason":…}`.
 * A person appears only by the pseudonymous ids the rest of the log uses, never by a token or secret.
 * With telemetry on, it is counted too (`toolkits.oauth.steps`, refused, by its error code or cause).
 */
export function logRefusal(logger: Logger, step: RefusedStep, refusal: Refusal): void {
  const code = refusal.error !== undefined && ERROR_CODE.test(refusal.error) ? refusal.error : undefined;
  telemetry()?.authStep(step, "refused", code ?? refusal.cause ?? "refused");
  logger.info("oauth refused", {
    step,
    ...(refusal.clientId !== undefined && { client_id: refusal.clientId }),
    ...(refusal.error !== undefined && { error: refusal.error }),
    reason: refusal.reason,
  });
}

/** An error oidc-provider answers with: its OAuth code, its description, and the detail it keeps to itself. */
interface OAuthFailure {
  error?: string;
  error_description?: string;
  /** What exactly went wrong ("refresh token already used"): logged, never answered. */
  error_detail?: string;
  message: string;
}

/**
 * Logs the refusals oidc-provider decides itself, one line each: token requests (a code exchange
 * or a refresh: a reused or revoked refresh token, a wrong PKCE verifier, a resource the grant
 * lacks) and registrations whose metadata it refuses.
 */
export function logProviderRefusals(provider: Provider, logger: Logger): void {
  const reasonOf = (error: OAuthFailure) =>
    [error.error_description ?? error.message, error.error_detail].filter(Boolean).join(": ");
  provider.on("grant.error", (ctx: KoaContextWithOIDC, error: OAuthFailure) => {
    const refreshing = ctx.oidc.params?.grant_type === "refresh_token";
    logRefusal(logger, refreshing ? "refresh" : "token", {
      clientId: ctx.oidc.client?.clientId,
      error: error.error,
      reason: reasonOf(error),
    });
  });
  provider.on("registration_create.error", (_ctx: KoaContextWithOIDC, error: OAuthFailure) => {
    logRefusal(logger, "registration", { error: error.error, reason: reasonOf(error) });
  });
}

/**
 * Counts the token requests oidc-provider grants (a code exchanged, a refresh), with telemetry on:
 * the successes beside the refusals `logProviderRefusals` counts.
 */
export function countProviderGrants(provider: Provider): void {
  provider.on("grant.success", (ctx: KoaContextWithOIDC) => {
    telemetry()?.authStep(ctx.oidc.params?.grant_type === "refresh_token" ? "refresh" : "token", "ok");
  });
}
