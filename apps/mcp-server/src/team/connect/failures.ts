import { redact } from "@toolkits/core";
import * as oauth from "openid-client";
import { describeOAuthError } from "../../credentials/oauth.js";
import { logRefusal } from "../authorize/refusals.js";
import type { ConnectContext } from "./context.js";

/**
 * The error code of an authorization response, for a page. Its description is left out: it
 * arrives in the callback URL, so anyone could write it.
 */
export const oauthErrorCode = (error: oauth.AuthorizationResponseError): string =>
  /^[\w.-]{1,64}$/.test(error.error) ? error.error : "an unexpected error";

/** An error's message, or an OAuth error's code and description; not redacted. */
export const errorText = (error: unknown): string =>
  error instanceof oauth.ResponseBodyError
    ? describeOAuthError(error)
    : error instanceof Error
      ? error.message
      : String(error);

/** OAuth error codes are lower case words joined by `_` (RFC 6749 §5.2); anything else is not logged. */
const ERROR_CODE = /^[a-z_]{1,40}$/;

/**
 * What a log line may say of a failed code exchange at a token endpoint: the server's error code
 * and HTTP status, never its description or body, which a server may fill by echoing the request
 * (the authorization code and PKCE verifier, secrets while the flow lives); for a failure to reach
 * it, the redacted message.
 */
export function exchangeFailure(error: unknown): Record<string, string | number> {
  if (error instanceof oauth.ResponseBodyError) {
    return {
      error: ERROR_CODE.test(error.error) ? error.error : "(not an OAuth error code)",
      status: error.status,
    };
  }
  return { reason: redact(error instanceof Error ? error.message : String(error)) };
}

/**
 * Logs a refused sign-in (see team/authorize/refusals.ts), naming the client when the browser was
 * signing in for an authorization (its return path names a `client_id`); `reason` holds no secret,
 * `cause` says it in one word for the metrics.
 */
export function logSignInRefusal(
  ctx: ConnectContext,
  returnTo: string | undefined,
  reason: string,
  cause: string,
): void {
  const clientId = returnTo ? URL.parse(returnTo, ctx.base)?.searchParams.get("client_id") : undefined;
  logRefusal(ctx.logger, "sign-in", { clientId: clientId ?? undefined, reason, cause });
}
