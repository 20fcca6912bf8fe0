import type { Logger } from "@toolkits/core";
import type { errors, KoaContextWithOIDC, Provider } from "oidc-provider";
import { documentRefusalOf } from "./documents.js";
import { logRefusal, type RefusedStep } from "./refusals.js";

type Refused = errors.OIDCProviderError;

/**
 * Logs every authorization request the library refuses, once, when its answer is sent (see
 * refusals.ts): a client whose metadata document could not be used as `metadata-document` (which
 * case: see documents.ts), a person's denial on the consent page as `consent`, anything else as
 * `authorization`. The library reports some refusals twice (the error, then the redirect URI it
 * could not answer at); the line names the error answered, and the first one too.
 */
export function logAuthorizationRefusals(provider: Provider, logger: Logger): void {
  const refused = new WeakMap<KoaContextWithOIDC, Refused[]>();
  provider.on("authorization.error", (ctx, error) => {
    const seen = refused.get(ctx);
    if (seen) return void seen.push(error);
    refused.set(ctx, [error]);
    ctx.res.once("close", () => logRefused(logger, ctx, refused.get(ctx) ?? [error]));
  });
}

function logRefused(logger: Logger, ctx: KoaContextWithOIDC, errors: readonly Refused[]): void {
  const [first, ...later] = errors;
  const answered = later.at(-1) ?? first;
  if (!first || !answered) return;
  const document = documentRefusalOf(first);
  const describe = (error: Refused) => error.error_description ?? error.message;
  const reason = later.length ? `${describe(answered)} (after: ${describe(first)})` : describe(answered);
  logRefusal(logger, stepOf(ctx, answered, document !== undefined), {
    clientId: clientIdOf(ctx),
    error: answered.error,
    reason: document?.reason ?? reason,
  });
}

function stepOf(ctx: KoaContextWithOIDC, error: Refused, document: boolean): RefusedStep {
  if (document) return "metadata-document";
  // A denial comes back from the consent page through the library's resume route.
  return ctx.oidc?.route === "resume" && error.error === "access_denied" ? "consent" : "authorization";
}

/** The client the request named, as the library found it, else as asked (a string only). */
function clientIdOf(ctx: KoaContextWithOIDC): string | undefined {
  const found = ctx.oidc?.client?.clientId;
  if (found) return found;
  const asked = ctx.oidc?.params?.client_id ?? ctx.query?.client_id;
  return typeof asked === "string" ? asked : undefined;
}
