// Offboarding without an operator, on the built server with the built-in authorization server and the
// embedded file store: a person whose identity provider refuses their refresh token loses their grants
// within one --revalidate-interval (shortened to 2 s here); a person without such a token (a named
// static token) loses a grant once it is --grant-max-age old; a name removed from
// MCP_HTTP_BEARER_TOKENS loses its grants at the next start.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  authorizeUrl,
  consentForm,
  type IssuedTokens,
  jwtParts,
  mcpRequest,
  pkce,
  redeemFields,
  refresh,
  register,
  tokenRequest,
} from "./authorize-flow.js";
import { browser } from "./browser.js";
import { INSTALL_TIMEOUT_MS } from "./debian.js";
import { type Deployment, startDeployment, storeRecordNames } from "./deployment.js";

const CALLBACK = "http://127.0.0.1:49157/callback";
const DAVE = randomBytes(24).toString("hex");
const ERIN = randomBytes(24).toString("hex");
const TOKENS = `dave:${DAVE},erin:${ERIN}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("offboarding without an operator", () => {
  let d: Deployment;
  let clientId: string;

  beforeAll(async () => {
    d = await startDeployment({
      name: "offboarding",
      replicas: 1,
      store: "file",
      env: {
        MCP_AUTHORIZATION_SERVER: "builtin",
        MCP_OAUTH_AUDIENCE: "",
        MCP_OAUTH_JWKS_URL: "",
        MCP_HTTP_BEARER_TOKENS: TOKENS,
        MCP_REVALIDATE_INTERVAL: "2",
      },
    });
    const registered = await register(d.url, { client_name: "Offboarding test", redirect_uris: [CALLBACK] });
    expect(registered.status).toBe(201);
    clientId = String(registered.body.client_id);
  }, INSTALL_TIMEOUT_MS + 120_000);
  afterAll(() => d?.stop());

  /**
   * Authorizes the client as a person signing in at the identity provider (`user`) or with their
   * named token (`token`), consents, and redeems the code.
   */
  async function authorizeAs(who: { user: string } | { token: string }): Promise<IssuedTokens> {
    const person = browser("user" in who ? { user: who.user } : {});
    const { verifier, challenge } = pkce();
    const url = authorizeUrl(d, { client_id: clientId, redirect_uri: CALLBACK, code_challenge: challenge });
    const stopBefore = (target: URL) => target.href.startsWith(CALLBACK);
    const form = await person.open(url, { stopBefore });
    expect(form.text).toContain("Paste the access token");
    let page =
      "token" in who
        ? await person.submit(form, { token: who.token }, undefined, { stopBefore })
        : await person.open(`${d.url}/connect/sign-in?with=idp`, { stopBefore });
    if (page.text.includes("Allow access?"))
      page = await person.post(page.form().action, consentForm(page, undefined, "allow"), { stopBefore });
    const callback = page.location ? new URL(page.location) : undefined;
    const redemption = { clientId, redirectUri: CALLBACK, callback, verifier };
    const answer = await tokenRequest(d.url, redeemFields(redemption));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body as unknown as IssuedTokens;
  }

  const status = async (tokens: IssuedTokens) =>
    (await mcpRequest(d, tokens.access_token, "tools/list")).status;
  const grantRecord = (tokens: IssuedTokens) => `tk:as:Grant:${jwtParts(tokens.access_token).payload.gid}`;
  const refreshesAtIdp = () =>
    d.idp.tokenRequests.filter((request) => request.grant_type === "refresh_token").length;

  it("asks the identity provider again only when due, and once it refuses the person, their next request gets 401 and their grants are gone", {
    timeout: 60_000,
  }, async () => {
    const alice = await authorizeAs({ user: "alice" });
    expect(await status(alice)).toBe(200);
    d.idp.refuseRefreshesOf("alice");
    const asked = refreshesAtIdp();
    // Within the interval: one existence check, no call to the identity provider.
    expect(await status(alice)).toBe(200);
    expect(refreshesAtIdp()).toBe(asked);

    await sleep(2_200);
    const response = await mcpRequest(d, alice.access_token, "tools/list");
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain("invalid_token");
    expect(refreshesAtIdp()).toBe(asked + 1);
    expect(await storeRecordNames(d)).not.toContain(grantRecord(alice));
    expect((await refresh(d, clientId, alice.refresh_token)).body.error).toBe("invalid_grant");
    expect(d.replicas[0]?.stderr()).toContain("the identity provider refused a person");
  });

  it("ends a grant once --grant-max-age old when its person has no refresh token there, and keeps the others", {
    timeout: 60_000,
  }, async () => {
    await d.restart(0, { MCP_GRANT_MAX_AGE: "3" });
    const [dave, bob] = [await authorizeAs({ token: DAVE }), await authorizeAs({ user: "bob" })];
    expect([await status(dave), await status(bob)]).toEqual([200, 200]);
    await sleep(3_200);
    expect(await status(dave)).toBe(401);
    expect(await storeRecordNames(d)).not.toContain(grantRecord(dave));
    // Bob signed in at the identity provider with a refresh token: it confirms him instead.
    expect(await status(bob)).toBe(200);
  });

  it("ends the grants of a person whose named token is removed, at the next start", {
    timeout: 60_000,
  }, async () => {
    await d.restart(0);
    const erin = await authorizeAs({ token: ERIN });
    const dave = await authorizeAs({ token: DAVE });
    expect([await status(erin), await status(dave)]).toEqual([200, 200]);
    await d.restart(0, { MCP_HTTP_BEARER_TOKENS: `dave:${DAVE}` });
    expect(await status(erin)).toBe(401);
    expect((await refresh(d, clientId, erin.refresh_token)).body.error).toBe("invalid_grant");
    expect(await status(dave)).toBe(200);
  });
});
