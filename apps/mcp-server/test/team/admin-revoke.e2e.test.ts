// `toolkits-mcp admin revoke` on the compose layout with real parts: two replicas of the built server
// on a real redis-server behind HAProxy, the built-in authorization server, the mock identity provider
// and the mock PagerDuty and Google authorization servers. Carol authorises a client, connects
// PagerDuty and Google and has a marketing connect link waiting; one command later her client's next
// call is refused on both replicas, its refresh token too, and both providers were asked to revoke.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../spawn.js";
import { type IssuedTokens, refresh, register, signedInTokens, toolCall } from "./authorize-flow.js";
import { type Browser, browser } from "./browser.js";
import { INSTALL_TIMEOUT_MS } from "./debian.js";
import { type Deployment, startDeployment, storeRecordNames } from "./deployment.js";

const CALLBACK = "http://127.0.0.1:49158/callback";

describe("admin revoke on two replicas with Redis", () => {
  let d: Deployment;
  let carol: Browser;
  let tokens: IssuedTokens;
  let clientId: string;
  let marketingLink: string;

  beforeAll(async () => {
    d = await startDeployment({
      name: "admin-revoke",
      replicas: 2,
      store: "redis",
      env: { MCP_AUTHORIZATION_SERVER: "builtin", MCP_OAUTH_AUDIENCE: "", MCP_OAUTH_JWKS_URL: "" },
    });
    const registered = await register(d.url, { client_name: "Revoke test", redirect_uris: [CALLBACK] });
    clientId = String(registered.body.client_id);
    carol = browser({ user: "carol" });
    tokens = await signedInTokens(d, carol, { clientId, redirectUri: CALLBACK });
  }, INSTALL_TIMEOUT_MS + 120_000);
  afterAll(() => d?.stop());

  /** Calls `tool` with Carol's access token at `base` (the balancer, or one replica). */
  const call = (tool: string, base = d.url) => toolCall(base, tokens.access_token, tool);

  /** The connect link a call's answer offers for `provider`. */
  const linkIn = (text: string, provider: string) =>
    new RegExp(`${d.url}/connect/${provider}\\?code=[\\w-]+`).exec(text)?.[0] ?? "";

  it("lets Carol connect PagerDuty and Google, and her client call as her on both replicas", {
    timeout: 60_000,
  }, async () => {
    for (const [tool, provider, title] of [
      ["Pager_WhoAmI", "pager", "PagerDuty"],
      ["Sheets_WhoAmI", "google", "Google"],
    ] as const) {
      const page = await carol.open(linkIn((await call(tool)).text, provider));
      expect(page.text).toContain(`Connected ${title} as carol@example.com`);
    }
    marketingLink = linkIn((await call("MarketingApi_GetAllSegments")).text, "marketing");
    expect(marketingLink).toMatch(/\/connect\/marketing\?code=/);
    for (const replica of d.replicas) {
      const answer = await call("Pager_WhoAmI", replica.url);
      expect(answer.isError, answer.text).toBe(false);
      expect(answer.text).toContain("Carol Example");
    }
  });

  it("ends everything of hers in one command: the next call gets 401 on both replicas, her refresh token is refused, and both providers are asked to revoke", {
    timeout: 60_000,
  }, async () => {
    const principal = `${d.idp.url}#carol`;
    const revoked = await runCli(["admin", "revoke", principal, "--json"], d.env);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({
      principal,
      grants: 1,
      clients: 1,
      sessions: 1,
      authorizationSessions: 1,
      codes: 1,
      connections: [
        { provider: "pager", revocation: "revoked" },
        { provider: "google", revocation: "revoked" },
      ],
    });
    for (const replica of d.replicas) expect((await call("Pager_WhoAmI", replica.url)).status).toBe(401);
    const again = await refresh(d, clientId, tokens.refresh_token);
    expect(again.status).toBe(400);
    expect(again.body.error).toBe("invalid_grant");
    const until = Date.now() + 5_000;
    while ((!d.pagerAuth.revocations.length || !d.googleAuth.revocations.length) && Date.now() < until)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(d.pagerAuth.revocations).toHaveLength(1);
    expect(d.googleAuth.revocations).toHaveLength(1);
    expect(d.pagerAuth.issued).toContain(d.pagerAuth.revocations[0]?.token);
    expect(d.googleAuth.issued).toContain(d.googleAuth.revocations[0]?.token);
  });

  it("left her nothing: no session at /connect, no connect link, no record of her in the list", async () => {
    const connect = await carol.open(`${d.url}/connect`, {
      stopBefore: (target) => target.origin === new URL(d.idp.url).origin,
    });
    expect(connect.location).toContain(d.idp.url);
    expect((await browser().open(marketingLink)).status).toBe(410);
    const names = await storeRecordNames(d);
    expect(
      names.filter((name) => /^tk:(signed-in|conn|as:Grant|as:Session|as:authorised):/.test(name)),
    ).toEqual([]);
    const person = await runCli(["admin", "person", `${d.idp.url}#carol`], d.env);
    expect(person.code).toBe(1);
  });
});
