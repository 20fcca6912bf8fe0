// The built-in authorization server refusing what it must (a wrong resource, audience or PKCE, a
// replayed code, an unregistered redirect, bad metadata documents, a revoked refresh token, a scope
// too narrow, a forged consent, an identity provider's answer in another browser),
// each case on its own, against the built server (one replica on redis-server), the mock identity
// provider and a loopback https host serving client metadata documents. Requests are made one at a
// time with fetch and the test browser, so each step can be broken on purpose.
import { createPrivateKey } from "node:crypto";
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storedKeys } from "../../src/team/authorize/keys.js";
import { openStore } from "../../src/team/store/index.js";
import { jsonRpcAnswer } from "../clients.js";
import {
  authorize,
  authorizeUrl,
  builtinEnv,
  consentForm,
  jwtParts,
  mcpRequest,
  pkce,
  redeemFields,
  register,
  resourceOf,
  tokenRequest,
} from "./authorize-flow.js";
import { browser } from "./browser.js";
import { type CimdHost, startCimdHost } from "./cimd-host.js";
import { INSTALL_TIMEOUT_MS } from "./debian.js";
import { type Deployment, startDeployment } from "./deployment.js";
import { MemoryProvider, startCallback } from "./oauth-client.js";
import { recordingLogger } from "./store-helpers.js";

const CALLBACK = "http://127.0.0.1:49152/callback";

describe("the built-in authorization server refuses", () => {
  let d: Deployment;
  let cimd: CimdHost;
  /** A client registered dynamically, with CALLBACK as its one redirect URI. */
  let clientId: string;

  beforeAll(async () => {
    cimd = await startCimdHost();
    d = await startDeployment({
      name: "authorize-refusals",
      replicas: 1,
      store: "redis",
      env: builtinEnv(cimd),
    });
    const registered = await register(d.url, {
      client_name: "Refusals test",
      redirect_uris: [CALLBACK],
      token_endpoint_auth_method: "none",
    });
    expect(registered.status).toBe(201);
    clientId = String(registered.body.client_id);
  }, INSTALL_TIMEOUT_MS + 120_000);
  afterAll(async () => {
    await d?.stop();
    await cimd?.stop();
  });

  /** A code for `clientId`, through sign-in and consent as `user`. */
  async function code(user: string, extra: Record<string, string> = {}) {
    const { verifier, challenge } = pkce();
    const url = authorizeUrl(d, {
      client_id: clientId,
      redirect_uri: CALLBACK,
      code_challenge: challenge,
      ...extra,
    });
    const done = await authorize(browser({ user }), url, CALLBACK);
    return { verifier, callback: done.callback, done };
  }

  /** Tokens for `resource` (the MCP URL by default), through sign-in and consent as `user`. */
  async function tokens(user: string, resource = resourceOf(d)) {
    const { verifier, callback } = await code(user, { resource });
    const redemption = { clientId, redirectUri: CALLBACK, callback, verifier };
    const answer = await tokenRequest(d.url, redeemFields(redemption, { resource }));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body as { access_token: string; refresh_token: string; scope: string };
  }

  it("nothing on the way of a client that does it right (the baseline for the cases below)", async () => {
    const issued = await tokens("alice");
    const { header, payload } = jwtParts(issued.access_token);
    expect(header.typ).toBe("at+jwt");
    expect(payload).toMatchObject({ iss: d.url, aud: resourceOf(d), client_id: clientId });
    expect(payload.sub).toBe(`${d.idp.url}#alice`);
    expect((payload.exp as number) - (payload.iat as number)).toBe(3_600);
    expect(issued.refresh_token).toBeTruthy();
    const listed = await mcpRequest(d, issued.access_token, "tools/list");
    expect(listed.status).toBe(200);
  });

  it("nothing on the way of a token for a connector URL, served there and beneath it; refused at /mcp and at other connector URLs", async () => {
    const issued = await tokens("alice", `${resourceOf(d)}/pager`);
    expect(jwtParts(issued.access_token).payload.aud).toBe(`${resourceOf(d)}/pager`);
    const list = (path: string) => mcpRequest(d, issued.access_token, "tools/list", {}, path);
    const listed = await list("/mcp/pager");
    expect(listed.status).toBe(200);
    const { result } = (await jsonRpcAnswer(listed)) as { result: { tools: { name: string }[] } };
    const names = result.tools.map((tool) => tool.name);
    expect(names.length).toBeGreaterThan(0);
    expect(names.every((name) => name.startsWith("Pager_"))).toBe(true);
    expect((await list("/mcp/pager/readonly")).status).toBe(200);
    for (const path of ["/mcp", "/mcp/sheets", "/mcp/pager+sheets"]) {
      const refused = await list(path);
      expect(refused.status, path).toBe(401);
      expect(refused.headers.get("www-authenticate"), path).toContain('error="invalid_token"');
    }
  });

  it("an approval at a connector URL covers that URL and beneath it only: the MCP URL asks for consent again", async () => {
    const at = async (resource: string) => (await code("grace", { resource })).done.consent;
    expect(await at(`${resourceOf(d)}/pager`)).toBeDefined();
    expect(await at(`${resourceOf(d)}/pager/readonly`)).toBeUndefined();
    expect(await at(`${resourceOf(d)}/sheets`)).toBeDefined();
    expect(await at(resourceOf(d))).toBeDefined();
    expect(await at(`${resourceOf(d)}/pager`)).toBeUndefined();
  });

  it.each([
    ["with dot segments", "/pager/../../admin"],
    ["with a query", "/pager?x=1"],
  ])("a connector resource %s: invalid_target", async (_case, suffix) => {
    const url = authorizeUrl(d, {
      client_id: clientId,
      redirect_uri: CALLBACK,
      code_challenge: pkce().challenge,
      resource: `${resourceOf(d)}${suffix}`,
    });
    const { callback } = await authorize(browser({ user: "alice" }), url, CALLBACK);
    expect(callback?.searchParams.get("error")).toBe("invalid_target");
    expect(callback?.searchParams.get("code")).toBeNull();
  });

  it("a resource other than its MCP URL, at the authorization endpoint: invalid_target, with iss", async () => {
    const url = authorizeUrl(d, {
      client_id: clientId,
      redirect_uri: CALLBACK,
      code_challenge: pkce().challenge,
      resource: "https://elsewhere.example/mcp",
    });
    const { callback } = await authorize(browser({ user: "alice" }), url, CALLBACK);
    expect(callback?.searchParams.get("error")).toBe("invalid_target");
    expect(callback?.searchParams.get("iss")).toBe(d.url);
    expect(callback?.searchParams.get("code")).toBeNull();
  });

  it("a resource other than its MCP URL, at the token endpoint: invalid_target", async () => {
    const { verifier, callback } = await code("alice");
    const answer = await tokenRequest(
      d.url,
      redeemFields(
        { clientId, redirectUri: CALLBACK, callback, verifier },
        { resource: "https://elsewhere.example/mcp" },
      ),
    );
    expect(answer.body.error).toBe("invalid_target");
  });

  it("at /mcp, its own token for another audience: 401", async () => {
    const store = await openStore(
      { url: d.redis?.url ?? "", key: d.env.MCP_STORE_KEY ?? "" },
      recordingLogger(),
    );
    const [jwk] = (await storedKeys(store))?.signing ?? [];
    await store.close();
    if (!jwk) throw new Error("no signing key in the store");
    const forged = await new SignJWT({ client_id: clientId, scope: "pager" })
      .setProtectedHeader({ alg: "RS256", typ: "at+jwt", kid: jwk.kid })
      .setIssuer(d.url)
      .setAudience("https://elsewhere.example/mcp")
      .setSubject(`${d.idp.url}#alice`)
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(createPrivateKey({ key: jwk, format: "jwk" }));
    const answer = await mcpRequest(d, forged, "tools/list");
    expect(answer.status).toBe(401);
    expect(answer.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it.each([
    ["no PKCE", { code_challenge: undefined, code_challenge_method: undefined }],
    ["PKCE plain", { code_challenge: "a".repeat(43), code_challenge_method: "plain" }],
  ])("%s: invalid_request", async (_case, params) => {
    const url = authorizeUrl(d, { client_id: clientId, redirect_uri: CALLBACK, ...params });
    const { callback } = await authorize(browser({ user: "alice" }), url, CALLBACK);
    expect(callback?.searchParams.get("error")).toBe("invalid_request");
    expect(callback?.searchParams.get("code")).toBeNull();
  });

  it("a wrong PKCE verifier: invalid_grant", async () => {
    const { callback } = await code("alice");
    const answer = await tokenRequest(
      d.url,
      redeemFields({ clientId, redirectUri: CALLBACK, callback, verifier: pkce().verifier }),
    );
    expect(answer.body.error).toBe("invalid_grant");
  });

  it("a code used twice: invalid_grant, and what the first use issued is revoked", async () => {
    const { verifier, callback } = await code("alice");
    const exchange = redeemFields({ clientId, redirectUri: CALLBACK, callback, verifier });
    const first = await tokenRequest(d.url, exchange);
    expect(first.status).toBe(200);
    expect((await tokenRequest(d.url, exchange)).body.error).toBe("invalid_grant");
    const refresh = await tokenRequest(d.url, {
      grant_type: "refresh_token",
      client_id: clientId,
      refresh_token: String(first.body.refresh_token),
    });
    expect(refresh.body.error).toBe("invalid_grant");
  });

  it("a redirect URI the client did not register: 400, and the browser is sent nowhere", async () => {
    const elsewhere = "https://attacker.example/callback";
    const url = authorizeUrl(d, {
      client_id: clientId,
      redirect_uri: elsewhere,
      code_challenge: pkce().challenge,
    });
    const { page, callback } = await authorize(browser({ user: "alice" }), url, elsewhere);
    expect(callback).toBeUndefined();
    expect(page.status).toBe(400);
    expect(page.location).toBeUndefined();
    expect(page.text).toContain("redirect_uri");
  });

  it("a registration with a plain-http redirect URI away from loopback: invalid_redirect_uri", async () => {
    const refused = await register(d.url, {
      client_name: "Plain http",
      redirect_uris: ["https://fine.example/cb", "http://attacker.example/cb"],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe("invalid_redirect_uri");
  });

  describe("a client metadata document", () => {
    const GOOD = {
      client_name: "Document test",
      redirect_uris: [CALLBACK],
      token_endpoint_auth_method: "none",
    };

    /** Opens an authorization for the document at `path`; resolves to the page the browser got. */
    async function authorizeDocument(path: string, clientIdOverride?: string) {
      const url = authorizeUrl(d, {
        client_id: clientIdOverride ?? cimd.url(path),
        redirect_uri: CALLBACK,
        code_challenge: pkce().challenge,
      });
      return authorize(browser({ user: "alice" }), url, CALLBACK);
    }

    it("is used when it is right (the baseline): the consent page names its host", async () => {
      cimd.serve("/good.json", { body: { ...GOOD, client_id: cimd.url("/good.json") } });
      const { consent, callback } = await authorizeDocument("/good.json");
      expect(consent?.text).toContain(`its identity is published at ${cimd.host}`);
      expect(callback?.searchParams.get("code")).toBeTruthy();
    });

    it("on a loopback address not on the allow-list is never fetched (the production guard)", async () => {
      cimd.serve("/private.json", {
        body: { ...GOOD, client_id: cimd.url("/private.json").replace("127.0.0.1", "localhost") },
      });
      const { page, callback } = await authorizeDocument(
        "/private.json",
        cimd.url("/private.json").replace("127.0.0.1", "localhost"),
      );
      expect(callback).toBeUndefined();
      expect(page.status).toBe(400);
      expect(page.text).toMatch(/invalid_client/);
      expect(cimd.hits("/private.json")).toBe(0);
    });
  });

  it("a refresh token revoked by its client (RFC 7009): invalid_grant; an unknown token is answered 200 all the same", async () => {
    const issued = await tokens("alice");
    const revoke = (token: string) =>
      fetch(`${d.url}/oauth/revoke`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token, token_type_hint: "refresh_token", client_id: clientId }),
      });
    expect((await revoke(issued.refresh_token)).status).toBe(200);
    expect((await revoke("not-a-token-this-server-issued")).status).toBe(200);
    const refresh = await tokenRequest(d.url, {
      grant_type: "refresh_token",
      client_id: clientId,
      refresh_token: issued.refresh_token,
    });
    expect(refresh.body.error).toBe("invalid_grant");
  });

  it("a call beyond the token's scopes: 403 insufficient_scope, naming the scopes it needs", async () => {
    const { verifier, challenge } = pkce();
    const url = authorizeUrl(d, {
      client_id: clientId,
      redirect_uri: CALLBACK,
      code_challenge: challenge,
      scope: "pager",
    });
    const { callback } = await authorize(browser({ user: "carol" }), url, CALLBACK);
    const issued = await tokenRequest(
      d.url,
      redeemFields({ clientId, redirectUri: CALLBACK, callback, verifier }),
    );
    expect(issued.body.scope).toBe("pager");
    const answer = await mcpRequest(d, String(issued.body.access_token), "tools/call", {
      name: "Sheets_CreateSpreadsheet",
      arguments: { title: "Budget" },
    });
    expect(answer.status).toBe(403);
    const challengeHeader = answer.headers.get("www-authenticate") ?? "";
    expect(challengeHeader).toContain('error="insufficient_scope"');
    expect(challengeHeader).toContain('scope="pager sheets write"');
    expect(challengeHeader).toContain(
      `resource_metadata="${d.url}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  it("a consent form posted without its CSRF token: 400, and no code", async () => {
    const url = authorizeUrl(d, {
      client_id: clientId,
      redirect_uri: CALLBACK,
      code_challenge: pkce().challenge,
      prompt: "consent",
    });
    const dave = browser({ user: "dave" });
    const { callback, page } = await authorize(dave, url, CALLBACK, {
      consent: (shown) => {
        const form = consentForm(shown, undefined, "allow");
        form.delete("csrf");
        return dave.post(shown.form().action, form, {
          stopBefore: (target) => target.href.startsWith(CALLBACK),
        });
      },
    });
    expect(callback).toBeUndefined();
    expect(page.status).toBe(400);
    expect(page.text).toContain("This form has expired");
  });

  it("a form posted with Origin: null from another site: 403; from this server's own page: let through", async () => {
    const post = (site: string) =>
      fetch(`${d.url}/oauth/interaction/none/consent`, {
        method: "POST",
        headers: {
          origin: "null",
          "sec-fetch-site": site,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: "csrf=x&decision=allow",
      });
    expect((await post("cross-site")).status).toBe(403);
    // Past the origin guard, an interaction this browser never had is over.
    const own = await post("same-origin");
    expect(own.status).toBe(400);
    expect(await own.text()).toContain("This authorization has expired");
  });

  it("the identity provider's answer carried to another browser: refused there, and nobody signed in", async () => {
    const url = authorizeUrl(d, {
      client_id: clientId,
      redirect_uri: CALLBACK,
      code_challenge: pkce().challenge,
    });
    const erin = browser({ user: "erin" });
    const atIdp = await erin.open(url, { stopBefore: (target) => target.href.startsWith(d.idp.url) });
    const idpUrl = atIdp.location ?? "";
    expect(idpUrl.startsWith(`${d.idp.url}/authorize`)).toBe(true);
    // The attacker's browser, with its own sign-in under way, gets erin's answer from the provider.
    const mallory = browser({ user: "erin" });
    await mallory.open(`${d.url}/connect/sign-in`, {
      stopBefore: (target) => target.href.startsWith(d.idp.url),
    });
    const replayed = await mallory.open(idpUrl);
    expect(replayed.status).toBe(400);
    expect(replayed.text).toContain("Sign-in started elsewhere");
    const connect = await mallory.open(`${d.url}/connect`, {
      stopBefore: (target) => target.href.startsWith(d.idp.url),
    });
    expect(connect.location?.startsWith(d.idp.url)).toBe(true);
  });

  it("an authorization response whose iss is missing or another's: the SDK (v2) refuses it before any token request", async () => {
    const callback = await startCallback();
    let reached: URL | undefined;
    const provider = new MemoryProvider({
      callback,
      clientName: "Issuer test",
      authorize: async (url) => {
        reached = (await authorize(browser({ user: "frank" }), url.href, callback.url)).callback;
      },
    });
    const tokenCalls: string[] = [];
    const counting: typeof fetch = (input, init) => {
      const target = String(input instanceof Request ? input.url : input);
      if (target.endsWith("/oauth/token")) tokenCalls.push(target);
      return fetch(input, init);
    };
    const transport = new StreamableHTTPClientTransport(new URL(resourceOf(d)), {
      authProvider: provider as never,
      fetch: counting,
    });
    const client = new Client(
      { name: "issuer-test", version: "0.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await expect(client.connect(transport)).rejects.toThrow(UnauthorizedError);
    await provider.pending;
    const answer = new URLSearchParams(reached?.search);
    expect(answer.get("iss")).toBe(d.url);
    for (const iss of ["https://attacker.example", undefined]) {
      const altered = new URLSearchParams(answer);
      if (iss) altered.set("iss", iss);
      else altered.delete("iss");
      await expect(transport.finishAuth(altered)).rejects.toThrow(/iss/i);
    }
    expect(tokenCalls).toEqual([]);
    await transport.finishAuth(answer);
    expect(tokenCalls).toHaveLength(1);
    await client.close();
    await callback.stop();
  });

  it("registrations beyond 10 an hour from one address: 429", async () => {
    const answers: number[] = [];
    for (let attempt = 0; attempt < 11; attempt++) {
      const { status } = await register(d.url, {
        client_name: `Burst ${attempt}`,
        redirect_uris: [CALLBACK],
      });
      answers.push(status);
    }
    expect(answers.at(-1)).toBe(429);
    expect(answers.filter((status) => status === 201).length).toBeLessThanOrEqual(9);
  });
});
