import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type Logger, silentLogger } from "@toolkits/core";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type GrantRecord, grantOf } from "../../src/credentials/grant.js";
import { type OAuthClients, PROVIDERS, type ProviderId } from "../../src/credentials/providers.js";
import { type ConnectDeps, connectSite } from "../../src/team/connect/index.js";

/** The connect pages of `deps`, as the server serves them (without the built-in authorization server unless given). */
const createConnectPages = (
  deps: ConnectDeps,
  authorization?: Parameters<ReturnType<typeof connectSite>["pages"]>[0],
) => connectSite(deps).pages(authorization);

import { type Connections, storedConnections } from "../../src/team/connections.js";
import { hashKey, openStore, type TeamStore } from "../../src/team/store/index.js";
import { type Browser, browser, type Page } from "./browser.js";
import { type MockAuthServer, startMockAuthServer } from "./mock-oauth.js";
import { type Served, serveFetch } from "./serve.js";

interface LogLine {
  level: string;
  message: string;
  fields: Record<string, unknown> | undefined;
}

const logs: LogLine[] = [];
const logger: Logger = Object.fromEntries(
  (["debug", "info", "warn", "error"] as const).map((level) => [
    level,
    (message: string, fields?: Record<string, unknown>) => void logs.push({ level, message, fields }),
  ]),
) as unknown as Logger;

const random = (label: string) => `${label}-${randomBytes(12).toString("hex")}`;
const CONNECT_SECRET = random("connect-client-secret");
const PAGER_SECRET = random("pager-client-secret");
const GOOD_KEY = random("good-app-key");
const BAD_KEY = random("refused-app-key");
const FAILING_KEY = random("failing-app-key");
const CAROL_TOKEN = random("carol-static-token");
const STORE_KEY = randomBytes(32).toString("base64");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let directory: string;
let store: TeamStore;
let idp: MockAuthServer;
let pagerAuth: MockAuthServer;
let googleAuth: MockAuthServer;
/** The pages with OpenID Connect sign-in at `idp`. */
let site: Served;
let connections: Connections;
/** The same pages with named static tokens only (no issuer). */
let tokenSite: Served;
let tokenConnections: Connections;
/** The same pages with both: OpenID Connect at `idp` and named static tokens. */
let bothSite: Served;
let bothConnections: Connections;

/**
 * The App API as the pages' key check reaches it (`deps.fetch`): GOOD_KEY is accepted, FAILING_KEY
 * answered 500, any other key 401. Each check is recorded.
 */
const MARKETING_URL = "https://marketing.test";
const marketingChecks: { request: string; authorization: string }[] = [];
const marketingApi: typeof fetch = async (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  const authorization = new Headers(init?.headers).get("authorization") ?? "";
  marketingChecks.push({ request: `${init?.method ?? "GET"} ${url.pathname}`, authorization });
  const key = authorization.replace(/^Bearer /, "");
  const status =
    url.origin !== MARKETING_URL || url.pathname !== "/v1/workspaces"
      ? 404
      : key === GOOD_KEY
        ? 200
        : key === FAILING_KEY
          ? 500
          : 401;
  return Response.json(status === 200 ? { workspaces: [{ id: 1, name: "Main" }] } : {}, { status });
};

/** Every value no page may show: tokens, codes, verifiers, states, keys, session ids. */
const secrets = new Set<string>([CONNECT_SECRET, PAGER_SECRET, GOOD_KEY, BAD_KEY, FAILING_KEY, CAROL_TOKEN]);
const browsers: Browser[] = [];
const scanned = new WeakSet<Page>();

const principal = (user: string) => `${idp.url}#${user}`;
const scopes: ConnectDeps["scopes"] = (provider) => PROVIDERS[provider].scopes([]);
const noOAuthClients: OAuthClients = { pager: {}, google: {} };

/** A person's connection as the team store holds it (sealed) under its key. */
const stored = (person: string, provider: ProviderId) =>
  store.get<GrantRecord>(`tk:conn:${hashKey(person)}:${provider}`);

function newBrowser(user?: string): Browser {
  const created = browser({ user });
  browsers.push(created);
  return created;
}

/** A connect link, its code remembered as a secret. */
async function linkFor(person: string, provider: ProviderId, from = connections) {
  const link = await from.link(person, provider);
  const code = new URL(link.url).searchParams.get("code");
  if (code) secrets.add(code);
  return { ...link, code: code ?? "" };
}

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "connect-test-"));
  store = await openStore(
    { url: pathToFileURL(join(directory, "store.json")).href, key: STORE_KEY },
    silentLogger,
  );
  [idp, pagerAuth, googleAuth] = await Promise.all([
    startMockAuthServer(),
    startMockAuthServer(),
    startMockAuthServer(),
  ]);
  const oauthClients: OAuthClients = {
    pager: { clientId: "pager-client", clientSecret: PAGER_SECRET, issuer: pagerAuth.url },
    google: { clientId: "google-client", issuer: googleAuth.url },
  };
  const deps = {
    store,
    storeKeys: { key: STORE_KEY },
    issuer: idp.url,
    connectClient: { id: "connect-client", secret: CONNECT_SECRET },
    oauthClients,
    settings: (name: string) => (name === "MARKETING_API_URL" ? MARKETING_URL : undefined),
    logger,
    fetch: marketingApi,
    scopes,
  };
  site = await serveFetch((url) => {
    connections = storedConnections(store, url, oauthClients);
    return createConnectPages({ ...deps, connections, publicUrl: url });
  });
  const identifyToken = (token: string) => (token === CAROL_TOKEN ? "token:carol" : undefined);
  tokenSite = await serveFetch((url) => {
    tokenConnections = storedConnections(store, url, oauthClients);
    return createConnectPages({
      ...deps,
      issuer: undefined,
      connections: tokenConnections,
      publicUrl: url,
      identifyToken,
    });
  });
  bothSite = await serveFetch((url) => {
    bothConnections = storedConnections(store, url, oauthClients);
    return createConnectPages({ ...deps, connections: bothConnections, publicUrl: url, identifyToken });
  });
});

afterAll(async () => {
  await Promise.all([site, tokenSite, bothSite, idp, pagerAuth, googleAuth].map((server) => server?.stop()));
  await store?.close();
  await rm(directory, { recursive: true, force: true });
});

const SECURITY_HEADERS = {
  "cache-control": "no-store",
  "referrer-policy": "same-origin",
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
};

// After every test: no page (nor log line) carries a secret, and every connect response has the headers.
afterEach(() => {
  for (const auth of [idp, pagerAuth, googleAuth]) {
    for (const value of [...auth.issued, ...auth.codes]) secrets.add(value);
    for (const request of auth.tokenRequests) if (request.code_verifier) secrets.add(request.code_verifier);
    for (const query of auth.authorizations) {
      if (query.state) secrets.add(query.state);
      if (query.nonce) secrets.add(query.nonce);
    }
  }
  for (const each of browsers) {
    for (const line of each.setCookies) secrets.add(line.split(";")[0]?.split("=")[1] ?? "");
  }
  secrets.delete("");
  const logText = JSON.stringify(logs);
  for (const secret of secrets) expect(logText, "a log line").not.toContain(secret);
  for (const each of browsers) {
    for (const page of each.seen) {
      if (scanned.has(page)) continue;
      scanned.add(page);
      const ours = [site, tokenSite, bothSite].some((served) => page.url.startsWith(served.url));
      if (!ours) continue;
      for (const secret of secrets)
        expect(page.body, `the page ${page.status} of ${page.url}`).not.toContain(secret);
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
        expect(page.headers.get(name), `${name} of ${page.url}`).toBe(value);
      }
    }
  }
});

describe("connecting an OAuth provider through a link", () => {
  it("signs Alice in at the identity provider, then stores her PagerDuty tokens", async () => {
    const alice = newBrowser("alice");
    const link = await linkFor(principal("alice"), "pager");
    const page = await alice.open(link.url);

    expect(page.status).toBe(200);
    expect(page.text).toContain("Connected PagerDuty as alice@example.com");
    expect(page.links).toContain(`${site.url}/connect`);
    const connection = await stored(principal("alice"), "pager");
    expect(connection).toMatchObject({
      provider: "pager",
      account: "alice@example.com",
      scopes: ["read"],
      clientId: "pager-client",
      tokenType: "bearer",
      server: {
        issuer: pagerAuth.url,
        token_endpoint: `${pagerAuth.url}/token`,
        revocation_endpoint: `${pagerAuth.url}/revoke`,
      },
    });
    expect(pagerAuth.issued).toContain(connection?.accessToken);
    expect(pagerAuth.issued).toContain(connection?.refreshToken);
    expect(connection?.expiresAt).toBeGreaterThan(Date.now());

    // Browser sign-in: OpenID Connect code flow with PKCE, state and nonce.
    const signIn = idp.authorizations.at(-1);
    expect(signIn).toMatchObject({
      response_type: "code",
      client_id: "connect-client",
      redirect_uri: `${site.url}/connect/signed-in`,
      scope: "openid email",
      code_challenge_method: "S256",
    });
    expect(signIn?.state).toBeTruthy();
    expect(signIn?.nonce).toBeTruthy();
    // Upstream: code flow with PKCE and state, the toolkit's scopes, the registered redirect URI.
    const consent = pagerAuth.authorizations.at(-1);
    expect(consent).toMatchObject({
      response_type: "code",
      client_id: "pager-client",
      redirect_uri: `${site.url}/connect/pager/callback`,
      scope: "read",
      code_challenge_method: "S256",
    });
    expect(consent?.state).toBeTruthy();
    expect(pagerAuth.tokenRequests.at(-1)).toMatchObject({
      grant_type: "authorization_code",
      client_id: "pager-client",
      client_secret: PAGER_SECRET,
      redirect_uri: `${site.url}/connect/pager/callback`,
    });
    expect(pagerAuth.tokenRequests.at(-1)?.code_verifier).toBeTruthy();

    const cookie = alice.setCookies.at(-1) ?? "";
    expect(cookie).toMatch(/^toolkits_connect=[\w-]{43}; /);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).toContain("Path=/;");
    expect(cookie).not.toContain("Secure");

    expect(logs).toContainEqual({
      level: "info",
      message: "connected",
      fields: { provider: "pager", principal: hashKey(principal("alice")).slice(0, 12) },
    });
    expect(JSON.stringify(logs)).not.toContain(principal("alice"));
  });

  it("connects Google with offline access, reusing the browser session", async () => {
    const alice = newBrowser("alice");
    await alice.open(`${site.url}/connect`);
    const signIns = idp.authorizations.length;
    const link = await linkFor(principal("alice"), "google");
    const page = await alice.open(link.url);

    expect(page.status).toBe(200);
    expect(page.text).toContain("Connected Google as alice@example.com");
    expect(idp.authorizations).toHaveLength(signIns);
    const consent = googleAuth.authorizations.at(-1);
    expect(consent).toMatchObject({ access_type: "offline", prompt: "consent" });
    expect(consent?.scope?.split(" ")).toContain("https://www.googleapis.com/auth/drive.file");
    const connection = await stored(principal("alice"), "google");
    expect(connection?.account).toBe("alice@example.com");
    expect(connection?.scopes).toEqual(scopes("google"));
    expect(googleAuth.issued).toContain(connection?.accessToken);
  });

  it("refuses Bob Alice's link, using nothing up, and lets Alice use it afterwards", async () => {
    const link = await linkFor(principal("alice"), "pager");
    await connections.of(principal("alice")).remove("pager");
    const bob = newBrowser("bob");
    const refused = await bob.open(link.url);

    expect(refused.status).toBe(403);
    expect(refused.text).toContain(
      "This link was made for someone else; ask your agent for a new link while signed in as yourself",
    );
    expect(await connections.peek(link.code)).toEqual({ principal: principal("alice"), provider: "pager" });
    expect(await stored(principal("bob"), "pager")).toBeUndefined();
    expect(await stored(principal("alice"), "pager")).toBeUndefined();

    const alice = newBrowser("alice");
    const page = await alice.open(link.url);
    expect(page.status).toBe(200);
    expect(await stored(principal("alice"), "pager")).toBeDefined();
  });

  it("refuses a code the second time", async () => {
    const alice = newBrowser("alice");
    const link = await linkFor(principal("alice"), "pager");
    expect((await alice.open(link.url)).status).toBe(200);
    const again = await alice.open(link.url);
    expect(again.status).toBe(410);
    expect(again.text).toContain("This link is no longer valid");
  });

  it("explains an expired, unknown or missing code", async () => {
    const alice = newBrowser("alice");
    const link = await linkFor(principal("alice"), "google");
    // The code's record, rewritten to expire at once.
    await store.set(
      `tk:code:${hashKey(link.code)}`,
      { principal: principal("alice"), provider: "google" },
      1,
    );
    await sleep(20);
    const expired = await alice.open(link.url);
    expect(expired.status).toBe(410);
    expect(expired.text).toContain("expired (links work for 10 minutes)");

    const unknown = await alice.open(`${site.url}/connect/google?code=${random("unknown")}`);
    expect(unknown.status).toBe(410);
    const wrongProvider = await linkFor(principal("alice"), "pager");
    const mismatched = await alice.open(`${site.url}/connect/google?code=${wrongProvider.code}`);
    expect(mismatched.status).toBe(410);
    expect(await connections.peek(wrongProvider.code)).toBeDefined();
    const missing = await alice.open(`${site.url}/connect/google`);
    expect(missing.status).toBe(400);
    expect(missing.text).toContain("Open the link your agent gave you");
  });

  it("lets only the person who started an authorization finish it", async () => {
    const alice = newBrowser("alice");
    const bob = newBrowser("bob");
    await bob.open(`${site.url}/connect`);
    await connections.of(principal("alice")).remove("pager");
    const link = await linkFor(principal("alice"), "pager");
    const paused = await alice.open(link.url, {
      stopBefore: (url) => url.pathname === "/connect/pager/callback",
    });
    const callback = paused.location ?? "";
    expect(callback).toContain("/connect/pager/callback?");

    const hijacked = await bob.open(callback);
    expect(hijacked.status).toBe(403);
    expect(hijacked.text).toContain("started by someone else");
    expect(await stored(principal("bob"), "pager")).toBeUndefined();

    const finished = await alice.open(callback);
    expect(finished.status).toBe(200);
    expect(await stored(principal("alice"), "pager")).toBeDefined();
    expect((await alice.open(callback)).status).toBe(400);
  });

  it("says so when the person does not grant access", async () => {
    const erin = newBrowser("erin");
    const link = await linkFor(principal("erin"), "pager");
    const paused = await erin.open(link.url, {
      stopBefore: (url) => url.pathname === "/connect/pager/callback",
    });
    const callback = new URL(paused.location ?? "");
    callback.searchParams.delete("code");
    callback.searchParams.set("error", "access_denied");
    const denied = await erin.open(callback.href);
    expect(denied.status).toBe(403);
    expect(denied.text).toContain("PagerDuty did not grant access (access_denied)");
    expect(await stored(principal("erin"), "pager")).toBeUndefined();
  });
});

describe("the marketing form", () => {
  it("checks the key against the App API, refusing a bad one, and stores a good one", async () => {
    const alice = newBrowser("alice");
    const link = await linkFor(principal("alice"), "marketing");
    const form = await alice.open(link.url);
    expect(form.status).toBe(200);
    expect(Object.keys(form.form().fields).sort()).toEqual(["api_key", "csrf", "region"]);

    const refused = await alice.submit(form, { api_key: BAD_KEY, region: "eu" });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain("Customer.io refused the key in the EU region");
    expect(refused.form().fields.region).toBe("eu");
    expect(marketingChecks.at(-1)).toEqual({
      request: "GET /v1/workspaces",
      authorization: `Bearer ${BAD_KEY}`,
    });
    expect(await stored(principal("alice"), "marketing")).toBeUndefined();

    const failed = await alice.submit(refused, { api_key: FAILING_KEY });
    expect(failed.status).toBe(502);
    expect(failed.text).toContain("The key could not be checked");
    expect(failed.text).toContain("Try again");
    expect(await stored(principal("alice"), "marketing")).toBeUndefined();

    const checks = marketingChecks.length;
    const done = await alice.submit(failed, { api_key: GOOD_KEY, region: "us" });
    expect(done.status).toBe(200);
    expect(done.text).toContain(
      "Connected Customer.io App API (US region), workspace Main, labelled “main-us”.",
    );
    expect(done.links).toContain(`${site.url}/connect`);
    expect(marketingChecks.length).toBe(checks + 1);
    expect(await stored(principal("alice"), "marketing")).toMatchObject({
      provider: "marketing",
      apiKey: GOOD_KEY,
      region: "us",
    });
  });

  it("refuses a post without the session's CSRF token", async () => {
    const frank = newBrowser("frank");
    const link = await linkFor(principal("frank"), "marketing");
    const form = await frank.open(link.url);
    const checks = marketingChecks.length;
    const missing = await frank.post(`${site.url}/connect/marketing`, { api_key: GOOD_KEY, region: "us" });
    expect(missing.status).toBe(400);
    const wrong = await frank.submit(form, { csrf: random("csrf"), api_key: GOOD_KEY });
    expect(wrong.status).toBe(400);
    const stranger = await newBrowser().post(`${site.url}/connect/marketing`, {
      ...form.form().fields,
      api_key: GOOD_KEY,
    });
    expect(stranger.status).toBe(401);
    expect(marketingChecks.length).toBe(checks);
    expect(await stored(principal("frank"), "marketing")).toBeUndefined();
  });
});

describe("the connections page", () => {
  it("lists the person's connections and disconnects them, revoking upstream", async () => {
    const dora = newBrowser("dora");
    expect((await dora.open((await linkFor(principal("dora"), "pager")).url)).status).toBe(200);
    const keyForm = await dora.open((await linkFor(principal("dora"), "marketing")).url);
    expect((await dora.submit(keyForm, { api_key: GOOD_KEY })).status).toBe(200);
    const pager = await stored(principal("dora"), "pager");

    const list = await dora.open(`${site.url}/connect`);
    expect(list.status).toBe(200);
    expect(list.text).toContain("Signed in as dora@example.com");
    expect(list.text).toContain("PagerDuty as dora@example.com");
    expect(list.text).toContain("Customer.io App API as Main, US region, labelled “main-us”");
    expect(list.forms.map((form) => form.action)).toEqual([
      `${site.url}/connect/pager/disconnect`,
      `${site.url}/connect/pager/rename`,
      `${site.url}/connect/marketing/disconnect`,
      `${site.url}/connect/marketing/rename`,
    ]);

    const revocations = pagerAuth.revocations.length;
    const out = await dora.submit(list, {}, /\/pager\/disconnect$/);
    expect(out.status).toBe(200);
    expect(out.text).toContain("Disconnected PagerDuty");
    expect(out.text).toContain("PagerDuty was told to revoke the access it granted");
    expect(out.links).toContain(`${site.url}/connect`);
    await vi.waitFor(() => expect(pagerAuth.revocations).toHaveLength(revocations + 1));
    expect(pagerAuth.revocations.at(-1)).toMatchObject({
      token: pager?.refreshToken,
      token_type_hint: "refresh_token",
      client_id: "pager-client",
    });
    expect(await stored(principal("dora"), "pager")).toBeUndefined();
    expect(logs).toContainEqual({
      level: "info",
      message: "disconnected",
      fields: {
        provider: "pager",
        principal: hashKey(principal("dora")).slice(0, 12),
        revocation: "revoked",
      },
    });

    const afterPager = await dora.open(`${site.url}/connect`);
    const key = await dora.submit(afterPager, {}, /\/marketing\/disconnect$/);
    expect(key.text).toContain("It still works at Customer.io");
    expect(await stored(principal("dora"), "marketing")).toBeUndefined();
    expect((await dora.open(`${site.url}/connect`)).text).toContain("No accounts are connected");
  });

  it("removes a connection even when the revocation fails, and says so", async () => {
    const gus = newBrowser("gus");
    expect((await gus.open((await linkFor(principal("gus"), "google")).url)).status).toBe(200);
    googleAuth.failNextRevocation(503);
    const list = await gus.open(`${site.url}/connect`);
    const out = await gus.submit(list, {}, /\/google\/disconnect$/);
    expect(out.status).toBe(200);
    expect(out.text).toContain("Google did not confirm revoking the access");
    expect(await stored(principal("gus"), "google")).toBeUndefined();
    expect(logs.some((line) => line.message === "revocation failed")).toBe(true);
  });

  it("lists each of a person's accounts at a provider by label, and disconnects only the one chosen", async () => {
    const ivy = newBrowser("ivy");
    expect((await ivy.open((await linkFor(principal("ivy"), "google")).url)).status).toBe(200);
    const first = await stored(principal("ivy"), "google");
    // A second Google account, as a later connect of another address keeps it.
    const home = { ...(first as GrantRecord), account: "ivy@home.example", accessToken: "home-access" };
    await connections.of(principal("ivy")).save(grantOf({ ...home, label: undefined }));

    const list = await ivy.open(`${site.url}/connect`);
    expect(list.text).toContain("labelled “ivy”");
    expect(list.text).toContain("as ivy@home.example, labelled “ivy-home.example”");
    const forms = list.forms.filter((form) => form.action.endsWith("/google/disconnect"));
    expect(forms.map((form) => form.fields.label)).toEqual(["ivy", "ivy-home.example"]);
    const out = await ivy.post(forms[1]?.action ?? "", forms[1]?.fields ?? {});
    expect(out.text).toContain("Disconnected Google");
    const left = await connections.of(principal("ivy")).list("google");
    expect(left.map((grant) => grant.label)).toEqual(["ivy"]);
  });

  it("needs the CSRF token to disconnect", async () => {
    const hal = newBrowser("hal");
    expect((await hal.open((await linkFor(principal("hal"), "pager")).url)).status).toBe(200);
    const refused = await hal.post(`${site.url}/connect/pager/disconnect`, { csrf: random("csrf") });
    expect(refused.status).toBe(400);
    expect(await stored(principal("hal"), "pager")).toBeDefined();
  });
});

describe("signing in with a named static token", () => {
  it("asks for the person's token, then carries on to the link", async () => {
    const carol = newBrowser();
    const link = await linkFor("token:carol", "marketing", tokenConnections);
    const signIn = await carol.open(link.url);
    expect(signIn.status).toBe(200);
    expect(signIn.url).toBe(`${tokenSite.url}/connect/sign-in`);
    expect(Object.keys(signIn.form().fields).sort()).toEqual(["csrf", "token"]);

    const wrong = await carol.submit(signIn, { token: random("not-a-token") });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain("That token is not one this server knows");

    const keyForm = await carol.submit(wrong, { token: CAROL_TOKEN });
    expect(keyForm.status).toBe(200);
    expect(keyForm.form().action).toBe(`${tokenSite.url}/connect/marketing`);
    expect((await carol.submit(keyForm, { api_key: GOOD_KEY })).status).toBe(200);
    expect(await stored("token:carol", "marketing")).toMatchObject({ apiKey: GOOD_KEY });
    expect((await carol.open(`${tokenSite.url}/connect`)).text).toContain("Signed in as carol");
  });

  it("refuses a token form without its CSRF token", async () => {
    const mallory = newBrowser();
    await mallory.open(`${tokenSite.url}/connect/sign-in`);
    const refused = await mallory.post(`${tokenSite.url}/connect/sign-in`, { token: CAROL_TOKEN });
    expect(refused.status).toBe(400);
    expect((await mallory.open(`${tokenSite.url}/connect`)).url).toBe(`${tokenSite.url}/connect/sign-in`);
  });
});

describe("a server with an identity provider and named static tokens", () => {
  it("signs a static-token person in with their token, and an identity provider's person at the provider", async () => {
    const carol = newBrowser();
    const link = await linkFor("token:carol", "marketing", bothConnections);
    const signIn = await carol.open(link.url);
    expect(signIn.status).toBe(200);
    expect(signIn.url).toBe(`${bothSite.url}/connect/sign-in`);
    expect(Object.keys(signIn.form().fields).sort()).toEqual(["csrf", "token"]);
    const keyForm = await carol.submit(signIn, { token: CAROL_TOKEN });
    expect(keyForm.form().action).toBe(`${bothSite.url}/connect/marketing`);
    expect((await carol.submit(keyForm, { api_key: GOOD_KEY })).status).toBe(200);
    expect(await stored("token:carol", "marketing")).toMatchObject({ apiKey: GOOD_KEY });

    const alice = newBrowser("alice");
    const signIns = idp.authorizations.length;
    const page = await alice.open((await linkFor(principal("alice"), "google", bothConnections)).url);
    expect(page.text).toContain("Connected Google as alice@example.com");
    expect(idp.authorizations).toHaveLength(signIns + 1);
  });

  it("offers both ways to a browser that comes without a link", async () => {
    const jo = newBrowser("jo");
    const signIn = await jo.open(`${bothSite.url}/connect`);
    expect(signIn.url).toBe(`${bothSite.url}/connect/sign-in`);
    expect(signIn.form().action).toBe(`${bothSite.url}/connect/sign-in`);
    const viaIdp = `${bothSite.url}/connect/sign-in?with=idp`;
    expect(signIn.links).toContain(viaIdp);
    const list = await jo.open(viaIdp);
    expect(list.url).toBe(`${bothSite.url}/connect`);
    expect(list.text).toContain("Signed in as jo@example.com");
  });
});

describe("signing out", () => {
  it("ends the browser's session here, keeping the person's connections", async () => {
    const kim = newBrowser("kim");
    expect((await kim.open((await linkFor(principal("kim"), "pager")).url)).status).toBe(200);
    const session = kim.setCookies.at(-1)?.split(";")[0] ?? "";
    const list = await kim.open(`${site.url}/connect`);
    expect(list.links).toContain(`${site.url}/connect/sign-out`);
    const confirm = await kim.open(`${site.url}/connect/sign-out`);
    expect(confirm.text).toContain("Signed in as kim@example.com");
    const out = await kim.submit(confirm);
    expect(out.status).toBe(200);
    expect(out.text).toContain("Signed out");
    expect(kim.setCookies.at(-1)).toMatch(/^toolkits_connect=; Path=\/; Max-Age=0; HttpOnly/);
    expect(await stored(principal("kim"), "pager")).toBeDefined();

    // The old cookie no longer signs anyone in, and the browser signs in again to see the list.
    const replayed = await fetch(`${site.url}/connect`, { headers: { cookie: session }, redirect: "manual" });
    expect(replayed.status).toBe(302);
    expect(replayed.headers.get("location")).toMatch(new RegExp(`^${idp.url}/authorize\\?`));
    const signIns = idp.authorizations.length;
    expect((await kim.open(`${site.url}/connect`)).text).toContain("PagerDuty as kim@example.com");
    expect(idp.authorizations).toHaveLength(signIns + 1);
  });

  it("needs the CSRF token", async () => {
    const lee = newBrowser("lee");
    await lee.open(`${site.url}/connect`);
    const refused = await lee.post(`${site.url}/connect/sign-out`, { csrf: random("csrf") });
    expect(refused.status).toBe(400);
    expect((await lee.open(`${site.url}/connect`)).text).toContain("Signed in as lee@example.com");
  });
});

describe("a token endpoint that echoes requests in its errors", () => {
  it("logs no authorization code or PKCE verifier of a failed sign-in or connection", async () => {
    const ivy = newBrowser("ivy");
    idp.echoNextTokenRequest();
    const signIn = await ivy.open(`${site.url}/connect`);
    expect(signIn.status).toBe(502);
    expect(logs).toContainEqual({
      level: "warn",
      message: "connect sign-in failed",
      fields: { error: "invalid_grant", status: 400 },
    });

    pagerAuth.echoNextTokenRequest();
    const link = await linkFor(principal("ivy"), "pager");
    const connect = await ivy.open(link.url);
    expect(connect.status).toBe(502);
    expect(logs).toContainEqual({
      level: "warn",
      message: "connect token exchange failed",
      fields: { provider: "pager", error: "invalid_grant", status: 400 },
    });
    // The scan after each test looks for every code and verifier in the logs.
    expect(idp.tokenRequests.at(-2)?.code_verifier).toBeTruthy();
    expect(pagerAuth.tokenRequests.at(-1)?.code_verifier).toBeTruthy();
  });
});

describe("connect codes", () => {
  const liveCodes = async () => (await store.keys("tk:code:")).length;

  it("gives a person one live code per provider, however often asked, until it is spent", async () => {
    const before = await liveCodes();
    const links = await Promise.all(Array.from({ length: 20 }, () => linkFor(principal("max"), "pager")));
    expect(new Set(links.map((link) => link.url)).size).toBe(1);
    expect(new Set(links.map((link) => link.id)).size).toBe(20);
    expect(links[0]?.message).toContain("(the link works for 10 minutes)");
    await linkFor(principal("max"), "google");
    await linkFor(principal("nia"), "pager");
    expect((await liveCodes()) - before).toBe(3);

    const max = newBrowser("max");
    expect((await max.open(links[0]?.url ?? "")).status).toBe(200);
    const next = await linkFor(principal("max"), "pager");
    expect(next.code).not.toBe(links[0]?.code);
  });

  it("replaces a code with under 3 minutes left, and the old one stops working", async () => {
    const old = await linkFor(principal("oli"), "marketing");
    // The person's pointer to the code, rewritten to expire in 2 minutes.
    const [pointer] = (await store.keys("tk:pending:")).filter((key) =>
      key.endsWith(hashKey(`${principal("oli")}\nmarketing`)),
    );
    expect(pointer).toBeDefined();
    await store.set(pointer ?? "", { code: old.code, expiresAt: Date.now() + 120_000 }, 120_000);
    const fresh = await linkFor(principal("oli"), "marketing");
    expect(fresh.code).not.toBe(old.code);
    expect(await connections.peek(old.code)).toBeUndefined();
    expect(await connections.peek(fresh.code)).toEqual({
      principal: principal("oli"),
      provider: "marketing",
    });
  });
});

describe("routing", () => {
  const routingDeps = (): ConnectDeps => ({
    connections: storedConnections(store, "http://pages.test", noOAuthClients),
    store,
    storeKeys: { key: STORE_KEY },
    publicUrl: "https://pages.test",
    connectClient: {},
    oauthClients: noOAuthClients,
    settings: () => undefined,
    logger,
    fetch: globalThis.fetch,
    scopes,
  });
  const pages = () => createConnectPages(routingDeps());

  it("leaves other paths alone and answers unknown ones under /connect with 404", async () => {
    const handler = pages();
    expect(await handler(new Request("https://pages.test/mcp"))).toBeUndefined();
    expect(await handler(new Request("https://pages.test/connected"))).toBeUndefined();
    expect((await handler(new Request("https://pages.test/connect/nope")))?.status).toBe(404);
    expect((await handler(new Request("https://pages.test/connect", { method: "DELETE" })))?.status).toBe(
      405,
    );
  });

  it("says what to set when there is no way to sign in", async () => {
    const response = await pages()(new Request("https://pages.test/connect"));
    expect(response?.status).toBe(503);
    expect(await response?.text()).toContain("MCP_OAUTH_ISSUER");
  });

  it("warns that the session cookie goes without Secure when the public URL is http away from this machine", () => {
    const warned = () => logs.filter((line) => line.message.startsWith("MCP_PUBLIC_URL is not https")).length;
    const before = warned();
    createConnectPages({ ...routingDeps(), publicUrl: "https://pages.test" });
    createConnectPages({ ...routingDeps(), publicUrl: "http://127.0.0.1:8080" });
    expect(warned()).toBe(before);
    createConnectPages({ ...routingDeps(), publicUrl: "http://pages.test" });
    expect(warned()).toBe(before + 1);
    expect(logs.at(-1)?.level).toBe("warn");
  });

  it("names the session cookie __Host- and marks it Secure on an https public URL, and reads it back by that name only", async () => {
    const handler = createConnectPages({ ...routingDeps(), identifyToken: () => undefined });
    const response = await handler(new Request("https://pages.test/connect/sign-in"));
    const cookie = response?.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^__Host-toolkits_connect=[^;]+; Path=\/; /);
    expect(cookie).toMatch(/; Secure$/);
    expect(cookie).not.toMatch(/domain=/i);
    const csrf = /name="csrf" value="([^"]+)"/.exec((await response?.text()) ?? "")?.[1] ?? "";
    const post = (name: string) =>
      handler(
        new Request("https://pages.test/connect/sign-in", {
          method: "POST",
          headers: {
            cookie: `${name}=${cookie.split(";")[0]?.split("=").slice(1).join("=")}`,
            "content-type": "application/x-www-form-urlencoded",
          },
          body: new URLSearchParams({ csrf, token: "unknown" }),
        }),
      );
    // The sign-in under way is found under the prefixed name (the token is then refused), never the plain one.
    expect((await post("__Host-toolkits_connect"))?.status).toBe(401);
    expect((await post("toolkits_connect"))?.status).toBe(400);
  });
});
