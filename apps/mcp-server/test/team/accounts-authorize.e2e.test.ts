// A token of the built-in authorization server is bound to the connector URL it was issued for,
// account label included: an SDK client (v2, with its own OAuth) signing in at `/mcp/sheets@work`
// acts as Alice's work Google account there and beneath it, and its token is refused at
// `/mcp/sheets@home`, at `/mcp/sheets` (the default account) and at `/mcp`. The built server on
// redis-server, the mock identity provider, the test browser for sign-in, consent and connecting.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonRpcAnswer } from "../clients.js";
import {
  authorize,
  authorizeUrl,
  builtinEnv,
  jwtParts,
  mcpRequest,
  pkce,
  redeemFields,
  refresh,
  register,
  resourceOf,
  tokenRequest,
} from "./authorize-flow.js";
import { browser } from "./browser.js";
import { type CimdHost, startCimdHost } from "./cimd-host.js";
import { INSTALL_TIMEOUT_MS } from "./debian.js";
import { type Deployment, startDeployment } from "./deployment.js";
import {
  type Callback,
  connectOAuth,
  MemoryProvider,
  type OAuthTestClient,
  startCallback,
} from "./oauth-client.js";

const PERSON = "alice";

describe("a built-in token for one account's connector URL (per user, Redis)", () => {
  let d: Deployment;
  let cimd: CimdHost;
  let callback: Callback;
  /** Alice's browser: signed in at the identity provider as Alice, at Google as the account's user. */
  const alice = browser();
  const clients: OAuthTestClient[] = [];

  beforeAll(async () => {
    cimd = await startCimdHost();
    [d, callback] = await Promise.all([
      startDeployment({ name: "accounts-authorize", replicas: 1, store: "redis", env: builtinEnv(cimd) }),
      startCallback(),
    ]);
    d.idp.signInAs(PERSON);
  }, INSTALL_TIMEOUT_MS + 120_000);
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
    await callback?.stop();
    await d?.stop();
    await cimd?.stop();
  });

  /** An SDK provider whose authorizations Alice's browser signs in to and allows. */
  const providerFor = () =>
    new MemoryProvider({
      callback,
      clientName: "Accounts test",
      authorize: async (url) => {
        const done = await authorize(alice, url.href, callback.url);
        if (!done.callback) throw new Error(`no callback: ${done.page.status} ${done.page.text}`);
        await fetch(done.callback);
      },
    });

  /** An SDK client at `path`, signed in through the built-in server (a new provider unless given). */
  async function clientAt(path: string, provider = providerFor()): Promise<OAuthTestClient> {
    const client = await connectOAuth("v2", `${d.url}${path}`, provider);
    clients.push(client);
    return client;
  }

  /** Connects the Google account `user` (labelled so) from the link `client`'s first call answers with. */
  async function connectGoogle(client: OAuthTestClient, user: string) {
    const asked = await client.call("Sheets_WhoAmI");
    const link = new RegExp(`${d.url}/connect/google\\?code=[\\w-]+`).exec(asked.text)?.[0];
    expect(asked.isError, asked.text).toBe(true);
    d.googleAuth.signInAs(user);
    const page = await alice.open(link ?? "");
    expect(page.text).toContain(`as ${user}@example.com`);
  }

  const emailOf = async (client: OAuthTestClient) => {
    const answer = await client.call("Sheets_WhoAmI");
    expect(answer.isError, answer.text).toBe(false);
    return JSON.stringify(answer.data).match(/"email(?:Address)?":"([^"]+)"/)?.[1];
  };

  let work: OAuthTestClient;
  let home: OAuthTestClient;

  it("signs an SDK client in at /mcp/sheets@work and another at /mcp/sheets@home, each acting as its own account", async () => {
    work = await clientAt("/mcp/sheets@work");
    await connectGoogle(work, "work");
    home = await clientAt("/mcp/sheets@home");
    await connectGoogle(home, "home");
    expect(await emailOf(work)).toBe("work@example.com");
    expect(await emailOf(home)).toBe("home@example.com");
    const token = work.provider.saved?.access_token ?? "";
    expect(jwtParts(token).payload.aud).toBe(`${resourceOf(d)}/sheets@work`);
  });

  it("serves the work token at /mcp/sheets@work and beneath it, and refuses it at /mcp/sheets@home, /mcp/sheets and /mcp with the URL's own metadata", async () => {
    const token = work.provider.saved?.access_token ?? "";
    const whoAmI = (path: string) =>
      mcpRequest(d, token, "tools/call", { name: "Sheets_WhoAmI", arguments: {} }, path);
    for (const path of ["/mcp/sheets@work", "/mcp/sheets@work/readonly"]) {
      const served = await whoAmI(path);
      expect(served.status, path).toBe(200);
      expect(JSON.stringify(await jsonRpcAnswer(served))).toContain("work@example.com");
    }
    for (const path of [
      "/mcp/sheets@home",
      "/mcp/sheets@home/readonly",
      "/mcp/sheets",
      "/mcp",
      "/mcp/sheets@work.2",
    ]) {
      const refused = await whoAmI(path);
      expect(refused.status, path).toBe(401);
      const challenge = refused.headers.get("www-authenticate") ?? "";
      expect(challenge, path).toContain('error="invalid_token"');
      expect(challenge, path).toContain(
        `resource_metadata="${d.url}/.well-known/oauth-protected-resource${path}"`,
      );
      expect(await refused.text(), path).not.toContain("@example.com");
    }
  });

  it("will not turn the work grant into a home token: neither its refresh token nor a code issued for work redeems for /mcp/sheets@home", async () => {
    const home = `${resourceOf(d)}/sheets@home`;
    const { client_id: clientId } = work.provider.client as { client_id: string };
    const refreshed = await refresh(d, clientId, work.provider.saved?.refresh_token ?? "", {
      resource: home,
    });
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe("invalid_target");

    const { verifier, challenge } = pkce();
    const redirectUri = callback.url;
    const url = authorizeUrl(d, {
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: challenge,
      resource: `${resourceOf(d)}/sheets@work`,
    });
    const done = await authorize(alice, url, redirectUri);
    const redeemed = await tokenRequest(
      d.url,
      redeemFields({ clientId, redirectUri, callback: done.callback, verifier }, { resource: home }),
    );
    expect(redeemed.status).toBe(400);
    expect(redeemed.body.error).toBe("invalid_target");
  });

  it("says on the consent page which account of each toolkit the connector URL acts as, and its connect link connects that label", async () => {
    const registered = await register(d.url, {
      client_name: "Consent for accounts",
      redirect_uris: [callback.url],
    });
    const url = authorizeUrl(d, {
      client_id: String(registered.body.client_id),
      redirect_uri: callback.url,
      code_challenge: pkce().challenge,
      resource: `${resourceOf(d)}/pager@eu+sheets@home`,
    });
    const consent = await alice.open(url, { stopBefore: (target) => target.href.startsWith(callback.url) });
    const text = consent.text.replace(/\s+/g, " ");
    expect(text, text).toContain("Allow access?");
    expect(text).toContain("PagerDuty : the client acts as your PagerDuty account “eu”, not connected:");
    expect(text).toContain("Connect PagerDuty account “eu”");
    // Home, not the default (work), is the Google account the client will act as.
    expect(text).toContain(
      "Google : the client acts as your Google account “home”, connected as home@example.com",
    );
    expect(text).not.toContain("work@example.com");
    // A provider the URL names no account of stays as it was: unlabelled.
    expect(text).toContain("Customer.io App API not connected: Connect Customer.io App API");

    const links = consent.links.filter((link) => link.includes("/connect/"));
    expect(links).toHaveLength(2);
    const pager = links.find((link) => link.includes("/connect/pager?code=")) ?? "";
    d.pagerAuth.signInAs("pager-eu");
    const connected = await alice.open(pager);
    expect(connected.text).toContain("Connected PagerDuty as pager-eu@example.com, labelled “eu”.");
  });
});
