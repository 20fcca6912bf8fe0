import type { Logger } from "@toolkits/core";

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
}

/**
 * Logs one refusal at `info`, once per refused request, so "the client cannot connect" can be
 * diagnosed from the log alone: `{"msg":"oauth refused","step":"refresh","client_id":…,"reason":…}`.
 * A person appears only by the pseudonymous ids the rest of the log uses, never by a token or secret.
 */
export function logRefusal(logger: Logger, step: RefusedStep, refusal: Refusal): void {
  logger.info("oauth refused", {
    step,
    ...(refusal.clientId !== undefined && { client_id: refusal.clientId }),
    ...(refusal.error !== undefined && { error: refusal.error }),
    reason: refusal.reason,
  });
}
