// The OAuth steps of the built-in authorization server as a client and a browser take them, one
// request at a time, so a test can break any step: register, authorize (sign-in and consent in the
// test browser), exchange, refresh, revoke.
import { createHash, randomBytes } from "node:crypto";
import { jsonRpcAnswer } from "../clients.js";
import type { Browser, Page } from "./browser.js";
import type { CimdHost } from "./cimd-host.js";
import type { Deployment, Replica } from "./deployment.js";

/** A PKCE pair (S256). */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

/** The deployment's MCP URL: the `resource` its tokens are for. */
export const resourceOf = (d: Deployment): string => `${d.url}/mcp`;

/** Registers a client dynamically (RFC 7591); resolves to the answer's status and body. */
export async function register(
  base: string,
  metadata: Record<string, unknown>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${base}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(metadata),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The authorization URL for `params` (code flow; PKCE S256, the resource and a state by default). */
export function authorizeUrl(d: Deployment, params: Record<string, string | undefined>): string {
  const url = new URL(`${d.url}/oauth/authorize`);
  const all: Record<string, string | undefined> = {
    response_type: "code",
    code_challenge_method: "S256",
    resource: resourceOf(d),
    state: randomBytes(8).toString("hex"),
    ...params,
  };
  for (const [name, value] of Object.entries(all)) if (value !== undefined) url.searchParams.set(name, value);
  return url.href;
}

/** Where an authorization ended: the redirect to the client's callback, or the page shown instead. */
export interface Authorized {
  /** The callback URL the browser was sent to (not requested), with `code`, `state`, `iss` or `error`. */
  callback: URL | undefined;
  /** The consent page, when one was shown. */
  consent: Page | undefined;
  /** The last page the browser got, when it was not sent to the callback. */
  page: Page;
}

/**
 * Opens `url` in `browser` (signing in at the mock identity provider as the browser's user), and on
 * the consent page ticks `scopes` (all offered, by default) and allows; stops before the callback
 * (any URL starting with `callbackPrefix`).
 */
export async function authorize(
  browser: Browser,
  url: string,
  callbackPrefix: string,
  options: { scopes?: string[]; consent?: (page: Page) => Promise<Page> } = {},
): Promise<Authorized> {
  const stopBefore = (target: URL) => target.href.startsWith(callbackPrefix);
  let page = await browser.open(url, { stopBefore });
  let consent: Page | undefined;
  if (page.status === 200 && page.text.includes("Allow access?")) {
    consent = page;
    page = options.consent
      ? await options.consent(page)
      : await browser.post(page.form().action, consentForm(page, options.scopes, "allow"), { stopBefore });
  }
  const callback = page.location?.startsWith(callbackPrefix) ? new URL(page.location) : undefined;
  return { callback, consent, page };
}

/** The consent form's fields: its CSRF token, the scopes ticked, the decision. */
export function consentForm(
  page: Page,
  scopes: string[] | undefined,
  decision: "allow" | "deny",
): URLSearchParams {
  const offered = [...page.body.matchAll(/name="scope" value="([^"]+)"/g)].map((match) => match[1] ?? "");
  const form = new URLSearchParams({ csrf: page.form().fields.csrf ?? "", decision });
  for (const scope of scopes ?? offered) form.append("scope", scope);
  return form;
}

/** A token request's answer. */
export interface TokenAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** Posts a token request (RFC 6749 §4.1.3, §6) to `base`'s token endpoint. */
export async function tokenRequest(base: string, fields: Record<string, string>): Promise<TokenAnswer> {
  const response = await fetch(`${base}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** What redeeming an authorization code needs: the client, its redirect URI and the code's callback. */
export interface Redemption {
  clientId: string;
  redirectUri: string;
  callback: URL | undefined;
  verifier: string;
}

/**
 * The token request (RFC 6749 §4.1.3) redeeming the code `callback` carries, with PKCE's
 * `verifier`; `extra` adds or overrides fields (a `resource`, a wrong verifier).
 */
export function redeemFields(
  redemption: Redemption,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    grant_type: "authorization_code",
    client_id: redemption.clientId,
    code: redemption.callback?.searchParams.get("code") ?? "",
    code_verifier: redemption.verifier,
    redirect_uri: redemption.redirectUri,
    ...extra,
  };
}

/** Decodes a JWT's header and payload, unverified, for assertions. */
export function jwtParts(token: string): {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
} {
  const [header = "", payload = ""] = token.split(".");
  const decode = (part: string) => JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
  return { header: decode(header), payload: decode(payload) };
}

/** A 2025-11-25 `tools/list` or `tools/call` with `token` at `path`; resolves to the HTTP answer. */
export async function mcpRequest(
  d: Pick<Deployment, "url">,
  token: string,
  method: "tools/list" | "tools/call",
  params: Record<string, unknown> = {},
  path = "/mcp",
): Promise<Response> {
  return fetch(`${d.url}${path}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
}

/** The settings of a deployment with the built-in server, trusting and allowing `cimd`'s host. */
export function builtinEnv(cimd: CimdHost): Record<string, string> {
  return {
    MCP_AUTHORIZATION_SERVER: "builtin",
    MCP_CIMD_PRIVATE_HOSTS: cimd.host,
    NODE_EXTRA_CA_CERTS: cimd.caFile,
    // The identity provider only signs people in: its tokens are not this server's.
    MCP_OAUTH_AUDIENCE: "",
    MCP_OAUTH_JWKS_URL: "",
  };
}

/** One `oauth refused` line of a replica's log: the step refused, the client, the error and why. */
export interface RefusalLine {
  step: string;
  client_id?: string;
  error?: string;
  reason: string;
}

/**
 * The `oauth refused` lines `replica` logged after the first `from` characters of its log (see
 * `replica.stderr()`), once they stop coming: lines are written as the answer goes out, so a
 * test asks after a short wait, until `atLeast` have arrived (or 5 s have passed), and then a little more.
 */
export async function refusalLines(replica: Replica, from: number, atLeast = 1): Promise<RefusalLine[]> {
  const read = () =>
    replica
      .stderr()
      .slice(from)
      .split("\n")
      .filter((line) => line.includes('"msg":"oauth refused"'))
      .map((line) => JSON.parse(line) as RefusalLine);
  const until = Date.now() + 5_000;
  while (read().length < atLeast && Date.now() < until)
    await new Promise((resolve) => setTimeout(resolve, 50));
  await new Promise((resolve) => setTimeout(resolve, 200));
  return read();
}

/** What the token endpoint issues for a code or a refresh. */
export interface IssuedTokens {
  access_token: string;
  refresh_token: string;
  scope: string;
  expires_in: number;
}

/**
 * Tokens for `client` (a registered client and its one redirect URI) at `resource` (the MCP URL
 * by default), through sign-in and consent in `as`'s browser, redeemed at once.
 */
export async function signedInTokens(
  d: Deployment,
  as: Browser,
  client: { clientId: string; redirectUri: string },
  resource = resourceOf(d),
): Promise<IssuedTokens> {
  const { verifier, challenge } = pkce();
  const url = authorizeUrl(d, {
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    code_challenge: challenge,
    resource,
  });
  const { callback } = await authorize(as, url, client.redirectUri);
  const answer = await tokenRequest(d.url, redeemFields({ ...client, callback, verifier }, { resource }));
  if (answer.status !== 200) throw new Error(`no tokens: ${JSON.stringify(answer.body)}`);
  return answer.body as unknown as IssuedTokens;
}

/** A refresh (RFC 6749 §6) of `refreshToken` by the public client `clientId`; `extra` adds fields. */
export const refresh = (
  d: Deployment,
  clientId: string,
  refreshToken: string,
  extra: Record<string, string> = {},
): Promise<TokenAnswer> =>
  tokenRequest(d.url, {
    grant_type: "refresh_token",
    client_id: clientId,
    refresh_token: refreshToken,
    ...extra,
  });

/** A `tools/call` of `tool` (no arguments) with `token` at `base` (the balancer, or one replica). */
export async function toolCall(
  base: string,
  token: string,
  tool: string,
): Promise<{ status: number; text: string; isError: boolean }> {
  const response = await mcpRequest({ url: base }, token, "tools/call", { name: tool, arguments: {} });
  if (response.status !== 200) return { status: response.status, text: "", isError: true };
  const result = (await jsonRpcAnswer(response)).result as {
    content?: { text?: string }[];
    isError?: boolean;
  };
  return { status: 200, text: result.content?.[0]?.text ?? "", isError: result.isError === true };
}
