// Clients that connect by URL alone to a team deployment with the built-in authorization server,
// with real parts on loopback: two replicas of the built server on redis-server behind HAProxy, the
// mock identity provider (oauth2-mock-server), headless Chromium for every browser step, and both
// SDK generations' own OAuth support as the MCP clients: v2 registering by a metadata document (on a
// loopback https host the replicas are told they may fetch from), v1 by dynamic registration.
// HAProxy pins four steps so they land on different replicas: the authorization request and the
// code exchange on replica1, the identity provider's callback and the refresh on replica2.
import { CHROMIUM_ARGS, chromiumExecutable } from "@toolkits/testkit/chromium";
import { type Browser, type BrowserContext, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinEnv, tokenRequest } from "./authorize-flow.js";
import { type ConsentSteps, consentInChromium } from "./chromium-consent.js";
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

/** The steps HAProxy sends to one replica (see the file's comment). */
const PINS = {
  replica1: [
    "{ path /oauth/authorize }",
    "{ path /oauth/token } { req.body -m sub grant_type=authorization_code }",
  ],
  replica2: [
    "{ path /connect/signed-in }",
    "{ path /oauth/token } { req.body -m sub grant_type=refresh_token }",
  ],
};

/** One response a browser or a client got through the balancer, and the replica that answered it. */
interface Hop {
  url: string;
  replica: string | undefined;
}

describe("clients connecting by URL alone to the built-in authorization server", () => {
  let d: Deployment;
  let cimd: CimdHost;
  let chrome: Browser;
  const hops: Hop[] = [];
  const callbacks: Callback[] = [];
  /** The clients' providers, whose tokens no log line may carry. */
  const providers: MemoryProvider[] = [];

  beforeAll(async () => {
    let executablePath: string;
    cimd = await startCimdHost();
    [d, executablePath] = await Promise.all([
      startDeployment({ name: "authorize", replicas: 2, store: "redis", env: builtinEnv(cimd), pins: PINS }),
      chromiumExecutable(),
    ]);
    chrome = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  }, INSTALL_TIMEOUT_MS + 600_000);
  afterAll(async () => {
    await chrome?.close();
    await Promise.all(callbacks.map((callback) => callback.stop()));
    await d?.stop();
    await cimd?.stop();
  });

  /** A browser context that reaches only this deployment's loopback servers, recording which replica answered. */
  async function browserContext(): Promise<BrowserContext> {
    const context = await chrome.newContext();
    await context.route("**/*", (route) => {
      const local = [d.url, d.idp.url, d.pagerAuth.url, ...callbacks.map((callback) => callback.url)];
      const target = route.request().url();
      return local.some((base) => target.startsWith(new URL(base).origin)) ? route.continue() : route.abort();
    });
    context.on("response", (response) =>
      hops.push({ url: response.url(), replica: response.headers()["x-replica"] }),
    );
    return context;
  }

  /** A client's browser run as `user` (see `consentInChromium`). */
  function inChromium(context: BrowserContext, user: string, options: ConsentSteps = {}) {
    return (url: URL) => consentInChromium(d, context, url.href, user, options);
  }

  /** Fetch for the SDK clients, recording which replica answered each request through the balancer. */
  const recordingFetch: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    hops.push({
      url: String(input instanceof Request ? input.url : input),
      replica: response.headers.get("x-replica") ?? undefined,
    });
    return response;
  };

  const served = (path: string) =>
    hops.filter((hop) => new URL(hop.url).pathname === path).map((hop) => hop.replica);

  describe("a 2026-07-28 client (SDK v2) registering by its metadata document", () => {
    let context: BrowserContext;
    let client: OAuthTestClient;

    it("signs in, consents (read-only), connects PagerDuty on the consent page, lists tools and calls Pager_WhoAmI", {
      timeout: 120_000,
    }, async () => {
      context = await browserContext();
      const callback = await startCallback();
      callbacks.push(callback);
      const documentUrl = cimd.url("/agent-v2.json");
      cimd.serve("/agent-v2.json", {
        body: {
          client_id: documentUrl,
          client_name: "Test agent (v2)",
          redirect_uris: [callback.url],
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"],
          token_endpoint_auth_method: "none",
        },
      });
      const provider = new MemoryProvider({
        callback,
        clientName: "Test agent (v2)",
        clientMetadataUrl: documentUrl,
        // A read-only token: every scope but `write`.
        authorize: inChromium(context, "alice", { connectPager: true, untick: ["write"] }),
      });
      providers.push(provider);
      client = await connectOAuth("v2", `${d.url}/mcp`, provider, recordingFetch);
      expect(provider.saved?.scope?.split(" ").sort()).toEqual(["marketing", "pager", "sheets"]);
      const names = (await client.listTools()).map((tool) => tool.name);
      expect(names).toContain("Pager_WhoAmI");
      expect(names).toContain("Sheets_GetSpreadsheet");
      expect(names).not.toContain("Sheets_CreateSpreadsheet");
      const whoAmI = await client.call("Pager_WhoAmI");
      expect(whoAmI.isError, whoAmI.text).toBe(false);
      expect(whoAmI.text).toContain("Alice Example");
      // Its metadata document identified it: nothing was registered.
      expect(provider.client?.client_id).toBe(documentUrl);
      expect(served("/oauth/register")).toEqual([]);
      expect(cimd.hits("/agent-v2.json")).toBeGreaterThan(0);
    });

    it("took its steps on different replicas: authorize on one, the identity provider's callback on the other, token on the first", () => {
      expect(served("/oauth/authorize")).toContain("replica1");
      expect(served("/connect/signed-in")).toEqual(["replica2"]);
      expect(served("/oauth/token")).toEqual(["replica1"]);
    });

    it("refreshes on the second replica when its access token is refused, with the refresh token rotated", {
      timeout: 60_000,
    }, async () => {
      const provider = client.provider;
      const before = provider.saved;
      if (!before) throw new Error("no tokens");
      provider.saved = { ...before, access_token: `${before.access_token.slice(0, -4)}AAAA` };
      const whoAmI = await client.call("Pager_WhoAmI");
      expect(whoAmI.isError, whoAmI.text).toBe(false);
      expect(served("/oauth/token")).toEqual(["replica1", "replica2"]);
      expect(provider.saved?.refresh_token).toBeTruthy();
      expect(provider.saved?.refresh_token).not.toBe(before.refresh_token);
    });

    it("calling a write tool with its read-only token gets 403, and the SDK's step-up succeeds after a new consent", {
      timeout: 120_000,
    }, async () => {
      const consentPages = () =>
        hops.filter((hop) => /^\/oauth\/interaction\/[^/]+\/consent$/.test(new URL(hop.url).pathname)).length;
      const before = consentPages();
      client.provider.options.authorize = inChromium(context, "alice");
      const created = await client.call("Sheets_CreateSpreadsheet", { title: "Budget" });
      expect(consentPages()).toBe(before + 1);
      expect(client.provider.saved?.scope?.split(" ").sort()).toEqual([
        "marketing",
        "pager",
        "sheets",
        "write",
      ]);
      // The call ran: it asks Alice to connect Google, which she has not.
      expect(created.text).toContain("/connect/google?code=");
      await client.close();
      await context.close();
    });
  });

  describe("a 2025-11-25 client (SDK v1) registering dynamically", () => {
    let context: BrowserContext;
    let client: OAuthTestClient;
    let provider: MemoryProvider;

    it("granted pager only on the consent page: lists only Pager_* tools, and calls Pager_WhoAmI", {
      timeout: 120_000,
    }, async () => {
      context = await browserContext();
      const callback = await startCallback();
      callbacks.push(callback);
      provider = new MemoryProvider({
        callback,
        clientName: "Test agent (v1)",
        authorize: inChromium(context, "bob", {
          connectPager: true,
          untick: ["sheets", "marketing", "write"],
        }),
      });
      providers.push(provider);
      client = await connectOAuth("v1", `${d.url}/mcp`, provider, recordingFetch);
      expect(provider.client?.client_id).toBeTruthy();
      expect(provider.saved?.scope).toBe("pager");
      const names = (await client.listTools()).map((tool) => tool.name);
      expect(names.length).toBeGreaterThan(5);
      expect(names.every((name) => name.startsWith("Pager_"))).toBe(true);
      const whoAmI = await client.call("Pager_WhoAmI");
      expect(whoAmI.isError, whoAmI.text).toBe(false);
      expect(whoAmI.text).toContain("Bob Example");
    });

    it("revoking it at /connect ends its grant", { timeout: 60_000 }, async () => {
      const page = await context.newPage();
      await page.goto(`${d.url}/connect`);
      await page.getByText("Clients you authorised").waitFor();
      await page
        .getByRole("listitem")
        .filter({ hasText: "Test agent (v1)" })
        .getByRole("button", { name: "Revoke" })
        .click();
      await page.getByText("Revoked").waitFor();
      expect(await page.content()).not.toContain("Test agent (v1)");
      const refresh = await tokenRequest(d.url, {
        grant_type: "refresh_token",
        client_id: String(provider.client?.client_id),
        refresh_token: provider.saved?.refresh_token ?? "",
      });
      expect(refresh.body.error).toBe("invalid_grant");
      await client.close();
      await context.close();
    });
  });

  it("had every replica log only JSON lines, none carrying a token it issued", () => {
    const issued = providers.flatMap((provider) =>
      provider.history.flatMap((tokens) => [tokens.access_token, tokens.refresh_token ?? ""]),
    );
    expect(issued.length).toBeGreaterThan(4);
    for (const replica of d.replicas) {
      const lines = replica.stderr().split("\n").filter(Boolean);
      for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
      for (const token of issued.filter(Boolean)) expect(replica.stderr()).not.toContain(token);
    }
  });

  it("kept its state in Redis sealed: clients, grants, refresh tokens, consents and keys, no token in the clear", async () => {
    const dump = (await d.redis?.dump()) ?? "";
    // From the key listing, not the dump: snapshot bytes can look like `tk:as:…<TAB>` lines.
    const all = (await d.redis?.records()) ?? new Map<string, string>();
    const records = [...all].filter(([name]) => name.startsWith("tk:as:"));
    const names = records.map(([name]) => name ?? "");
    for (const kind of [
      "keys",
      "Client:",
      "Grant:",
      "RefreshToken:",
      "approval:",
      "authorised:",
      "clients",
      "person-clients:",
    ])
      expect(
        names.some((name) => name.startsWith(`tk:as:${kind}`)),
        kind,
      ).toBe(true);
    // Locks, single-use claims, the registration counters and the indexes (of hashes) hold no more
    // than an owner, a count or hashes.
    const indexes = [
      "tk:as:clients",
      "tk:as:person-clients:",
      "tk:as:person-grants:",
      "tk:as:client-grants:",
      "tk:as:person-sessions:",
      "tk:as:register:",
    ];
    const plain = (name = "") =>
      /:(lock|consumed)$/.test(name) || indexes.some((index) => name.startsWith(index));
    for (const [name, value] of records) if (!plain(name)) expect(value, name).toMatch(/^v2\./);
    const issued = providers.flatMap((provider) =>
      provider.history.flatMap((tokens) => [tokens.access_token, tokens.refresh_token ?? ""]),
    );
    for (const token of issued.filter(Boolean)) expect(dump).not.toContain(token);
  });
});
