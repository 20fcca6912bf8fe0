// How the built-in authorization server's tokens live, on real Redis and on the file store: access
// tokens last an hour (or --access-token-ttl) and still end at once when their grant is revoked;
// refresh tokens rotate, survive clients that refresh concurrently (a grace for the rotated one)
// and kill the grant when reused after it; a refresh for a resource the grant lacks leaves the
// refresh token usable; a repeated `resource` is a 400, not a 500.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  authorizeUrl,
  builtinEnv,
  jwtParts,
  mcpRequest,
  pkce,
  refresh,
  register,
  resourceOf,
  signedInTokens,
} from "./authorize-flow.js";
import { browser } from "./browser.js";
import { type CimdHost, startCimdHost } from "./cimd-host.js";
import { INSTALL_TIMEOUT_MS } from "./debian.js";
import { type Deployment, type StoreKind, startDeployment } from "./deployment.js";

const CALLBACK = "http://127.0.0.1:49154/callback";
/** The grace in these deployments, in seconds: short, so reuse after it is seen within the test. */
const GRACE_S = 2;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The refusal lines (see refusals.ts) the deployment's replica logged after its first `from` characters. */
const refusalsSince = (d: Deployment, from: number): Record<string, unknown>[] =>
  (d.replicas[0]?.stderr().slice(from) ?? "")
    .split("\n")
    .filter((line) => line.includes('"oauth refused"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe.each<StoreKind>(["redis", "file"])(
  "tokens of the built-in authorization server on the %s store",
  (store) => {
    let d: Deployment;
    let cimd: CimdHost;
    let client: { clientId: string; redirectUri: string };

    beforeAll(async () => {
      cimd = await startCimdHost();
      d = await startDeployment({
        name: `authorize-tokens-${store}`,
        replicas: 1,
        store,
        env: { ...builtinEnv(cimd), MCP_REFRESH_GRACE: String(GRACE_S) },
      });
      const registered = await register(d.url, {
        client_name: "Tokens test",
        redirect_uris: [CALLBACK],
        token_endpoint_auth_method: "none",
      });
      expect(registered.status).toBe(201);
      client = { clientId: String(registered.body.client_id), redirectUri: CALLBACK };
    }, INSTALL_TIMEOUT_MS + 120_000);
    afterAll(async () => {
      await d?.stop();
      await cimd?.stop();
    });

    const tokensOf = (user: string, resource?: string) =>
      signedInTokens(d, browser({ user }), client, resource);

    it("issues access tokens that live an hour, longer than any client's refresh margin", async () => {
      const issued = await tokensOf("alice");
      const { payload } = jwtParts(issued.access_token);
      expect((payload.exp as number) - (payload.iat as number)).toBe(3_600);
      expect(issued.expires_in).toBe(3_600);
      const refreshed = await refresh(d, client.clientId, issued.refresh_token);
      expect(refreshed.body.expires_in).toBe(3_600);
    });

    it("answers seven concurrent refreshes of one refresh token with seven working token sets, under one live grant", async () => {
      const issued = await tokensOf("carol");
      const answers = await Promise.all(
        Array.from({ length: 7 }, () => refresh(d, client.clientId, issued.refresh_token)),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(7).fill(200));
      const successors = answers.map((answer) => String(answer.body.refresh_token));
      expect(new Set(successors).size).toBe(7);
      for (const answer of answers)
        expect((await mcpRequest(d, String(answer.body.access_token), "tools/list")).status).toBe(200);
      // Each successor works on its own, later: the grant is alive.
      const later = await refresh(d, client.clientId, successors[6] ?? "");
      expect(later.status).toBe(200);
      expect((await mcpRequest(d, String(later.body.access_token), "tools/list")).status).toBe(200);
    });

    it("kills the grant when a rotated refresh token comes back after the grace: its successors and access tokens end at once", async () => {
      const issued = await tokensOf("dave");
      const rotated = await refresh(d, client.clientId, issued.refresh_token);
      expect(rotated.status).toBe(200);
      const within = await refresh(d, client.clientId, issued.refresh_token);
      expect(within.status).toBe(200);
      await sleep(GRACE_S * 1000 + 500);
      const logged = d.replicas[0]?.stderr().length ?? 0;
      const reuse = await refresh(d, client.clientId, issued.refresh_token);
      expect(reuse.body.error).toBe("invalid_grant");
      // The operator's log says why, once: the client, the refusal and its reason.
      expect(refusalsSince(d, logged)).toEqual([
        expect.objectContaining({
          step: "refresh",
          client_id: client.clientId,
          error: "invalid_grant",
          reason: expect.stringContaining("already used"),
        }),
      ]);
      for (const successor of [rotated, within]) {
        const next = await refresh(d, client.clientId, String(successor.body.refresh_token));
        expect(next.body.error).toBe("invalid_grant");
        const call = await mcpRequest(d, String(successor.body.access_token), "tools/list");
        expect(call.status).toBe(401);
        expect(call.headers.get("www-authenticate")).toContain("revoked");
      }
    });

    it("ends access at once when the person revokes the client at /connect, an hour before its token expires", async () => {
      const bob = browser({ user: "bob" });
      const issued = await signedInTokens(d, bob, client);
      expect((await mcpRequest(d, issued.access_token, "tools/list")).status).toBe(200);
      const list = await bob.open(`${d.url}/connect`);
      expect(list.text).toContain("Tokens test");
      const revoked = await bob.submit(list, {}, /\/connect\/clients\/revoke$/);
      expect(revoked.text).toContain("Revoked");
      expect(revoked.text).not.toContain("Tokens test");
      const call = await mcpRequest(d, issued.access_token, "tools/list");
      expect(call.status).toBe(401);
      expect(call.headers.get("www-authenticate")).toContain('error="invalid_token"');
      expect((await refresh(d, client.clientId, issued.refresh_token)).body.error).toBe("invalid_grant");
    });

    it("refuses a refresh for a resource the grant lacks with invalid_target, leaving the refresh token usable", async () => {
      const issued = await tokensOf("erin", `${resourceOf(d)}/pager`);
      const wrong = await refresh(d, client.clientId, issued.refresh_token, {
        resource: `${resourceOf(d)}/sheets`,
      });
      expect(wrong.status).toBe(400);
      expect(wrong.body.error).toBe("invalid_target");
      const right = await refresh(d, client.clientId, issued.refresh_token, {
        resource: `${resourceOf(d)}/pager`,
      });
      expect(right.status).toBe(200);
      expect(jwtParts(String(right.body.access_token)).payload.aud).toBe(`${resourceOf(d)}/pager`);
    });

    it("answers a repeated resource parameter with 400, at the authorization and the token endpoints", async () => {
      const { challenge } = pkce();
      const url = new URL(
        authorizeUrl(d, { client_id: client.clientId, redirect_uri: CALLBACK, code_challenge: challenge }),
      );
      url.searchParams.append("resource", resourceOf(d));
      const authorization = await fetch(url, { redirect: "manual" });
      expect(authorization.status).toBe(400);
      expect(await authorization.json()).toMatchObject({ error: "invalid_target" });
      const issued = await tokensOf("frank");
      const body = new URLSearchParams({
        grant_type: "refresh_token",
        client_id: client.clientId,
        refresh_token: issued.refresh_token,
      });
      body.append("resource", resourceOf(d));
      body.append("resource", resourceOf(d));
      const token = await fetch(`${d.url}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body,
      });
      expect(token.status).toBe(400);
      expect(await token.json()).toMatchObject({ error: "invalid_target" });
      // Nothing was consumed by the refused request.
      expect((await refresh(d, client.clientId, issued.refresh_token)).status).toBe(200);
    });

    it("takes --access-token-ttl", async () => {
      await d.restart(0, { MCP_ACCESS_TOKEN_TTL: "120" });
      const issued = await tokensOf("grace");
      const { payload } = jwtParts(issued.access_token);
      expect((payload.exp as number) - (payload.iat as number)).toBe(120);
    });
  },
);
