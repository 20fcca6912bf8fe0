import type { IncomingMessage } from "node:http";
import type { Logger } from "@toolkits/core";
import type { Provider } from "oidc-provider";
import { readBody } from "../../pages.js";
import { page, redirect } from "../../web/respond.js";
import { messagePage } from "../../web/templates.js";
import { MAX_RETURN_PATH } from "../connect/session.js";
import { AS_PATH } from "./provider.js";
import { logRefusal } from "./refusals.js";

/** The authorization endpoint's path. */
export const AUTHORIZE_PATH = `${AS_PATH}/authorize`;

/**
 * The most characters of each authorization parameter taken (as decoded); any other parameter
 * takes OTHER_PARAMETER_LIMIT. Real clients send far less (a metadata document URL, a loopback
 * callback, a 43-character state and challenge).
 */
export const PARAMETER_LIMITS = {
  client_id: 512,
  redirect_uri: 512,
  resource: 512,
  state: 512,
  scope: 256,
  code_challenge: 128,
} as const;
const OTHER_PARAMETER_LIMIT = 256;
const limitOf = (name: string): number =>
  (PARAMETER_LIMITS as Record<string, number | undefined>)[name] ?? OTHER_PARAMETER_LIMIT;

/** What the gate needs: the library, who a browser is, how to send it to sign in, the log. */
export interface StrangerDeps {
  provider: Provider;
  /** Who the request's browser is signed in as at /connect (its cookies), if anyone. */
  personOf(req: IncomingMessage): Promise<string | undefined>;
  /** Sends the browser to sign in, then back to `returnTo` (a path here), writing nothing to the store. */
  signIn(returnTo: string): Promise<Response>;
  logger: Logger;
}

/**
 * The authorization endpoint's gate, so a browser that is not signed in costs the store nothing:
 * the library stores an interaction of several KB for every authorization it starts, so it starts
 * one only for a signed-in browser. A request from anyone else that is surely this client's own
 * (the client exists and the redirect URI is one of its) is sent to sign in first, carrying the
 * whole request as where to come back to in its sealed cookie; one that is surely not goes on to
 * the library, which refuses it before storing anything (an unknown client, a redirect URI not
 * the client's, `prompt=none`, a repeated parameter). Every request's parameters are bounded
 * (PARAMETER_LIMITS, and MAX_RETURN_PATH characters of path and query in all, which keeps that
 * cookie under 2 KB): a larger one is answered 400 naming the parameter and its limit.
 * A form posted by a browser not signed in is sent on as the same request by GET.
 * Resolves to the answer, or undefined to hand the request to the library.
 * @throws StoreUnavailable when the store is out of reach (finding the browser's session).
 */
export async function authorizeGate(deps: StrangerDeps, req: IncomingMessage): Promise<Response | undefined> {
  if (req.method === "POST") return postedByStranger(deps, req);
  // The library answers other methods itself, without starting anything.
  if (req.method !== "GET") return undefined;
  const target = req.url ?? AUTHORIZE_PATH;
  const query = new URLSearchParams(target.slice(AUTHORIZE_PATH.length + 1));
  const tooLarge = oversized(target, query);
  if (tooLarge) return refuse(deps.logger, query, tooLarge);
  if (await deps.personOf(req)) return undefined;
  if (!(await surelyTheClients(deps.provider, query))) return undefined;
  return deps.signIn(target);
}

/** A form posted to the endpoint by a browser not signed in: the same request by GET. */
async function postedByStranger(deps: StrangerDeps, req: IncomingMessage): Promise<Response | undefined> {
  const type = req.headers["content-type"]?.toLowerCase() ?? "";
  if (!type.startsWith("application/x-www-form-urlencoded") || (await deps.personOf(req))) return undefined;
  const body = await readBody(req, MAX_RETURN_PATH);
  const query = new URLSearchParams(body?.toString("utf8") ?? "");
  if (!body) return refuse(deps.logger, query, `the request is longer than ${MAX_RETURN_PATH} characters`);
  return redirect(`${AUTHORIZE_PATH}?${query}`, 303);
}

/** Which parameter is over its limit, and the limit, in words; undefined when none is. */
function oversized(target: string, query: URLSearchParams): string | undefined {
  for (const [name, value] of query) {
    const limit = limitOf(name);
    if (value.length > limit) return `${name.slice(0, 40)} is longer than ${limit} characters`;
  }
  if (target.length > MAX_RETURN_PATH)
    return `the request's path and query are longer than ${MAX_RETURN_PATH} characters`;
  return undefined;
}

/**
 * Whether the library would take the request's client and redirect URI (one of the client's own,
 * or its only one when none is named) and go on to ask for sign-in: then it is worth signing in
 * for. When not, the library surely refuses it: a parameter it reads given twice (several
 * resources: see index.ts), no client or an unknown one, another redirect URI, `prompt=none`
 * (which never shows a page).
 */
async function surelyTheClients(provider: Provider, query: URLSearchParams): Promise<boolean> {
  const [clientId, ...more] = query.getAll("client_id");
  const uris = query.getAll("redirect_uri");
  const prompts = query.getAll("prompt");
  if (!clientId || more.length || uris.length > 1 || prompts.length > 1) return false;
  if (query.getAll("resource").length > 1) return false;
  if ((prompts[0] ?? "").split(" ").includes("none")) return false;
  const client = await provider.Client.find(clientId).catch(() => undefined);
  if (!client) return false;
  const [uri] = uris;
  return uri === undefined ? client.redirectUris?.length === 1 : client.redirectUriAllowed(uri);
}

function refuse(logger: Logger, query: URLSearchParams, reason: string): Response {
  const clientId = query.get("client_id");
  logRefusal(logger, "authorization", {
    clientId: clientId && clientId.length <= PARAMETER_LIMITS.client_id ? clientId : undefined,
    error: "invalid_request",
    reason,
  });
  return page(
    400,
    messagePage(
      "Authorization refused",
      `invalid_request: ${reason}.`,
      "Nothing was authorized. Go back to your client and try connecting again.",
    ),
  );
}
