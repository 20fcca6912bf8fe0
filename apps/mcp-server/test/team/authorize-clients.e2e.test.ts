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
  redeemFields,
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
    const redemption = { clientId, redirectUri, callback, verifier };
    const answer = await tokenRequest(d.url, redeemFields(redemption, { resource: resourceOf(d) }));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return { consent, token: jwtParts(String(answer.body.access_token)).payload };
  }

  it("serves the metadata each client looks for, at both well-known paths, named by the resource metadata", async () => {
    const resource = await (await fetch(`${d.url}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(resource).toMatchObject({
      resource: resourceOf(d),
      authorization_servers: [d.url],
      scopes_supported: ["pager", "sheets", "marketing", "write"],
    });
    const [oauth, openid] = await Promise.all(
      ["oauth-authorization-server", "openid-configuration"].map(
        async (name) =>
          (await fetch(`${d.url}/.well-known/${name}`)).json() as Promise<Record<string, unknown>>,
      ),
    );
    expect(openid).toEqual(oauth);
    expect(oauth).toMatchObject({
      issuer: d.url,
      authorization_endpoint: `${d.url}/oauth/authorize`,
      token_endpoint: `${d.url}/oauth/token`,
      registration_endpoint: `${d.url}/oauth/register`,
      revocation_endpoint: `${d.url}/oauth/revoke`,
      code_challenge_methods_supported: ["S256"],
      response_types_supported: ["code"],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
      scopes_supported: ["pager", "sheets", "marketing", "write"],
    });
    // claude.ai uses a metadata document only when `none` is among these.
    expect(oauth?.token_endpoint_auth_methods_supported).toContain("none");
    expect(oauth?.token_endpoint_auth_methods_supported).not.toContain("private_key_jwt");
  });

  it.each([
    ["/mcp", ["pager", "sheets", "marketing", "write"]],
    ["/mcp/pager", ["pager"]],
    ["/mcp/pager/readonly", ["pager"]],
    ["/mcp/sheets", ["sheets", "write"]],
    ["/mcp/sheets/readonly", ["sheets"]],
    ["/mcp/pager+sheets", ["pager", "sheets", "write"]],
    ["/mcp/pager+sheets/readonly/search", ["pager", "sheets"]],
    ["/mcp/marketing:segments,broadcasts", ["marketing", "write"]],
    ["/mcp/marketing:segments/readonly", ["marketing"]],
    ["/mcp/sheets/search", ["sheets", "write"]],
  ])("offers at %s only the scopes its tools can use", async (path, scopes) => {
    const metadata = await (await fetch(`${d.url}/.well-known/oauth-protected-resource${path}`)).json();
    expect(metadata).toEqual({
      resource: `${d.url}${path}`,
      authorization_servers: [d.url],
      bearer_methods_supported: ["header"],
      scopes_supported: scopes,
    });
  });

  it("Claude Code's metadata document, calling back on a port its loopback redirects do not name", async () => {
    const path = "/oauth/claude-code-client-metadata";
    cimd.serve(path, { body: { ...(await fixture("claude-code.json")), client_id: cimd.url(path) } });
    const { consent, token } = await connect(cimd.url(path), "http://localhost:54545/callback", "alice");
    expect(consent?.text).toContain("Claude Code asks to use this server's tools as you");
    expect(consent?.text).toContain("receives the authorization on this computer (localhost)");
    expect(token.client_id).toBe(cimd.url(path));
  });

  it("a client's logo shown from the copy the server keeps, fetched once, allowed by the page's CSP", async () => {
    // The smallest PNG: one transparent pixel.
    const png = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=",
      "base64",
    );
    cimd.serve("/logo.png", { body: png, headers: { "content-type": "image/png" } });
    const path = "/oauth/with-logo.json";
    cimd.serve(path, {
      body: {
        ...(await fixture("claude-code.json")),
        client_id: cimd.url(path),
        logo_uri: cimd.url("/logo.png"),
      },
    });
    for (const user of ["dora", "emil"]) {
      const { consent } = await connect(cimd.url(path), "http://127.0.0.1:50505/callback", user);
      expect(consent?.body).toContain(`<img src="data:image/png;base64,${png.toString("base64")}"`);
      expect(consent?.headers.get("content-security-policy")).toContain("img-src data:");
      expect(consent?.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    }
    expect(cimd.hits("/logo.png")).toBe(1);
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
