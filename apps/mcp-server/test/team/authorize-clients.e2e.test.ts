// Real clients' registrations, from vendored copies of their shapes (fixtures/clients/), accepted by
// the built-in authorization server end to end (authorize, sign in, consent, code, token): Claude
// Code's metadata document (port-less loopback redirects, no application_type; it calls back on a
// port of its own), ChatGPT's (prefers private_key_jwt, offers none) and Cursor's registration of
// three redirect URIs at once (a scheme of its own, https, loopback). Each document is served, with
// its client_id made its own URL, from a loopback https host the server may fetch from.
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  authorize,
  authorizeUrl,
  builtinEnv,
  jwtParts,
  pkce,
  register,
  resourceOf,
  tokenRequest,
} from "./authorize-flow.js";
import { browser } from "./browser.js";
import { type CimdHost, startCimdHost } from "./cimd-host.js";
import { INSTALL_TIMEOUT_MS } from "./debian.js";
import { type Deployment, startDeployment } from "./deployment.js";

const fixture = async (name: string): Promise<Record<string, unknown>> =>
  JSON.parse(await readFile(new URL(`fixtures/clients/${name}`, import.meta.url), "utf8"));

describe("real clients' registrations are accepted", () => {
  let d: Deployment;
  let cimd: CimdHost;

  beforeAll(async () => {
    cimd = await startCimdHost();
    d = await startDeployment({
      name: "authorize-clients",
      replicas: 1,
      store: "file",
      env: builtinEnv(cimd),
    });
  }, INSTALL_TIMEOUT_MS + 120_000);
  afterAll(async () => {
    await d?.stop();
    await cimd?.stop();
  });

  /** Authorizes `clientId` at `redirectUri` as `user`, exchanges the code; resolves to what the steps showed. */
  async function connect(clientId: string, redirectUri: string, user: string) {
    const { verifier, challenge } = pkce();
    const url = authorizeUrl(d, {
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: challenge,
    });
    const { consent, callback } = await authorize(browser({ user }), url, redirectUri);
    expect(callback?.searchParams.get("iss")).toBe(d.url);
    const answer = await tokenRequest(d.url, {
      grant_type: "authorization_code",
      client_id: clientId,
      code: callback?.searchParams.get("code") ?? "",
      code_verifier: verifier,
      redirect_uri: redirectUri,
      resource: resourceOf(d),
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return { consent, token: jwtParts(String(answer.body.access_token)).payload };
  }

  it("Claude Code's metadata document, calling back on a port its loopback redirects do not name", async () => {
    const path = "/oauth/claude-code-client-metadata";
    cimd.serve(path, { body: { ...(await fixture("claude-code.json")), client_id: cimd.url(path) } });
    const { consent, token } = await connect(cimd.url(path), "http://localhost:54545/callback", "alice");
    expect(consent?.text).toContain("Claude Code asks to use this server's tools as you");
    expect(consent?.text).toContain("receives the authorization on this computer (localhost)");
    expect(token.client_id).toBe(cimd.url(path));
  });

  it("ChatGPT's metadata document, preferring private_key_jwt and offering none: a public client", async () => {
    const path = "/oauth/IbUR3zxyNQ16/client.json";
    cimd.serve(path, { body: { ...(await fixture("chatgpt.json")), client_id: cimd.url(path) } });
    const { consent, token } = await connect(
      cimd.url(path),
      "https://chatgpt.com/connector/oauth/IbUR3zxyNQ16",
      "bob",
    );
    expect(consent?.text).toContain("The authorization goes back to chatgpt.com");
    expect(consent?.text).not.toContain("on this computer (localhost)");
    expect(token.client_id).toBe(cimd.url(path));
  });

  it("Cursor's registration of three redirect URIs, each of which then works", async () => {
    const registered = await register(d.url, await fixture("cursor-registration.json"));
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    const clientId = String(registered.body.client_id);
    expect(registered.body.redirect_uris).toHaveLength(3);
    for (const redirectUri of registered.body.redirect_uris as string[]) {
      const { consent } = await connect(clientId, redirectUri, "carol");
      expect(consent?.text).toContain("it registered itself with this server");
    }
  });
});
