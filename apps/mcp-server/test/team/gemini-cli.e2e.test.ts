// Issue 30: the real Gemini CLI (pinned, see gemini-cli.ts) through the built-in authorization
// server, on two replicas over real Redis behind HAProxy. It registers by DCR, Alice signs in and
// consents in headless Chromium (the CLI's browser opener hands the URL to the test), and it lists
// the tools and calls Pager_WhoAmI through a stand-in Gemini API. Access tokens live the shortest
// time allowed, a minute, and the CLI counts any token within 5 minutes of expiry as expired: so each
// MCP request of a restarted CLI refreshes, some at once with the same refresh token, the case that
// used to end its grant. (authorize-tokens.e2e.test.ts replays that case on both stores.)
import { setTimeout as delay } from "node:timers/promises";
import { CHROMIUM_ARGS, chromiumExecutable } from "@toolkits/testkit/chromium";
import { type Browser, type BrowserContext, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinEnv } from "./authorize-flow.js";
import { consentInChromium } from "./chromium-consent.js";
import { type CimdHost, startCimdHost } from "./cimd-host.js";
import { INSTALL_TIMEOUT_MS } from "./debian.js";
import { type Deployment, startDeployment } from "./deployment.js";
import { type FakeGeminiApi, startFakeGeminiApi } from "./gemini-api.js";
import {
  GEMINI_CLI_VERSION,
  type GeminiHome,
  geminiCli,
  geminiHome,
  type StoredCredentials,
} from "./gemini-cli.js";
import { type OAuthExchange, type RecordingFront, startRecordingFront } from "./recording-front.js";

/** Seconds an access token lives (MCP_ACCESS_TOKEN_TTL, at least 60). */
const TOKEN_TTL_S = 60;
/** Seconds a rotated refresh token may be presented again (MCP_REFRESH_GRACE): short, to be waited out. */
const GRACE_S = 5;
/** How late token requests reach the deployment: a remote client's round trip. */
const TOKEN_LATENCY_MS = 300;
const SERVER = "toolkits";
const RUN_TIMEOUT_MS = 90_000;

describe(`Gemini CLI ${GEMINI_CLI_VERSION} through the built-in authorization server`, () => {
  let d: Deployment;
  let cimd: CimdHost;
  let front: RecordingFront;
  let api: FakeGeminiApi;
  let chrome: Browser;
  let context: BrowserContext;
  let home: GeminiHome;

  beforeAll(async () => {
    let executablePath: string;
    let cli: string;
    [cimd, front, api] = await Promise.all([
      startCimdHost(),
      startRecordingFront(TOKEN_LATENCY_MS),
      startFakeGeminiApi("Pager_WhoAmI"),
    ]);
    [d, executablePath, cli] = await Promise.all([
      startDeployment({
        name: "gemini-cli",
        replicas: 2,
        store: "redis",
        env: {
          ...builtinEnv(cimd),
          MCP_PUBLIC_URL: front.url,
          MCP_ACCESS_TOKEN_TTL: String(TOKEN_TTL_S),
          MCP_REFRESH_GRACE: String(GRACE_S),
        },
      }),
      chromiumExecutable(),
      geminiCli(),
    ]);
    front.target = d.url;
    chrome = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
    context = await chrome.newContext();
    // Loopback only: the deployment, its identity providers and the CLI's callback.
    await context.route("**/*", (route) =>
      ["127.0.0.1", "localhost"].includes(new URL(route.request().url()).hostname)
        ? route.continue()
        : route.abort(),
    );
    home = await geminiHome(cli, {
      server: SERVER,
      mcpUrl: `${front.url}/mcp`,
      modelUrl: api.url,
      browse: (url) => consentInChromium(d, context, url, "alice", { connectPager: true }),
    });
  }, INSTALL_TIMEOUT_MS + 600_000);
  afterAll(async () => {
    await home?.stop();
    await chrome?.close();
    await d?.stop();
    await Promise.all([cimd?.stop(), front?.stop(), api?.stop()]);
  });

  const exchanges = (path: string, since = 0): OAuthExchange[] =>
    front.exchanges.filter((exchange) => exchange.path === path && exchange.at >= since);
  const refreshes = (since: number) =>
    exchanges("/oauth/token", since).filter((exchange) => exchange.sent.grant_type === "refresh_token");

  /** Runs the CLI once; resolves to what it sent the model (the tools offered, the tool results). */
  async function ask() {
    const turnsBefore = api.turns.length;
    const { code, output } = await home.run("Who am I on PagerDuty?", RUN_TIMEOUT_MS);
    const turns = api.turns.slice(turnsBefore);
    return {
      code,
      output,
      offered: turns.flatMap((turn) => turn.offered),
      results: turns.flatMap((turn) => turn.results),
    };
  }

  /** Waits until `credentials`' access token has expired; resolves to when it did. */
  async function expiryOf(credentials: StoredCredentials | undefined): Promise<number> {
    const expiresAt = credentials?.token.expiresAt ?? 0;
    await delay(Math.max(0, Math.min(expiresAt - Date.now() + 1000, (TOKEN_TTL_S + 5) * 1000)));
    return expiresAt;
  }

  let first: StoredCredentials | undefined;
  let second: StoredCredentials | undefined;

  it("registers by DCR, Alice signs in and consents in Chromium, and it lists the tools and calls Pager_WhoAmI", {
    timeout: RUN_TIMEOUT_MS + 30_000,
  }, async () => {
    const { code, output, offered, results } = await ask();
    expect(code, output).toBe(0);
    expect(home.opened).toHaveLength(1);
    const opened = new URL(home.opened[0] ?? "");
    expect(`${opened.origin}${opened.pathname}`).toBe(`${front.url}/oauth/authorize`);
    expect(opened.searchParams.get("resource")).toBe(`${front.url}/mcp`);
    const [registration, ...more] = exchanges("/oauth/register");
    expect(more).toEqual([]);
    expect(registration?.status).toBe(201);
    expect(registration?.sent).toMatchObject({
      client_name: "Gemini CLI MCP Client",
      redirect_uris: [expect.stringMatching(/^http:\/\/localhost:\d+\/oauth\/callback$/)],
      token_endpoint_auth_method: "none",
    });
    // tools/list: the server's tools, offered to the model under the CLI's names for them.
    expect(offered).toContain(`mcp_${SERVER}_Pager_WhoAmI`);
    expect(offered).toContain(`mcp_${SERVER}_Sheets_GetSpreadsheet`);
    // tools/call, as Alice.
    expect(results.map((result) => result.name)).toEqual([`mcp_${SERVER}_Pager_WhoAmI`]);
    expect(JSON.stringify(results)).toContain("Alice Example");
    first = await home.credentials(SERVER);
    expect(first?.clientId).toBe(registration?.answer.client_id);
    expect(first?.token.refreshToken).toBeTruthy();
  });

  it("restarted past its access token's expiry, refreshes with one refresh token twice at once, and stays connected", {
    timeout: RUN_TIMEOUT_MS + (TOKEN_TTL_S + 10) * 1000,
  }, async () => {
    const expiredAt = await expiryOf(first);
    const since = Date.now();
    const { code, output, offered, results } = await ask();
    const sent = refreshes(since);
    expect(sent.map((exchange) => [exchange.status, exchange.answer.error])).toEqual(
      sent.map(() => [200, undefined]),
    );
    expect(code, output).toBe(0);
    expect(output).not.toContain("Failed to refresh auth token");
    expect(offered).toContain(`mcp_${SERVER}_Pager_WhoAmI`);
    expect(JSON.stringify(results)).toContain("Alice Example");
    // Neither a new sign-in nor a new registration.
    expect(home.opened).toHaveLength(1);
    expect(exchanges("/oauth/register")).toHaveLength(1);
    // The CLI's refresh request: no client secret, no scope, the resource named.
    expect(sent[0]?.sent).toEqual({
      grant_type: "refresh_token",
      refresh_token: first?.token.refreshToken,
      client_id: first?.clientId,
      resource: `${front.url}/mcp`,
    });
    // One refresh token presented again while its first presentation was still being answered.
    const again = sent.filter((exchange) =>
      sent.some(
        (other) =>
          other !== exchange &&
          other.sent.refresh_token === exchange.sent.refresh_token &&
          other.at <= exchange.at &&
          exchange.at < other.answeredAt,
      ),
    );
    expect(again.length).toBeGreaterThan(0);
    expect(since).toBeGreaterThan(expiredAt);
    second = await home.credentials(SERVER);
  });

  it("restarted again once the refresh grace is over, refreshes with the refresh token it kept and stays connected", {
    timeout: RUN_TIMEOUT_MS + 30_000,
  }, async () => {
    expect(second?.token.refreshToken).toEqual(expect.any(String));
    expect(second?.token.refreshToken).not.toBe(first?.token.refreshToken);
    // Past the grace, a refresh token presented before would end the grant: the one kept is unused.
    const lastRefresh = Math.max(...refreshes(0).map((exchange) => exchange.answeredAt));
    await delay(Math.max(0, lastRefresh + (GRACE_S + 1) * 1000 - Date.now()));
    const since = Date.now();
    const { code, output, results } = await ask();
    const sent = refreshes(since);
    expect(sent.map((exchange) => [exchange.status, exchange.answer.error])).toEqual(
      sent.map(() => [200, undefined]),
    );
    expect(sent[0]?.sent.refresh_token).toBe(second?.token.refreshToken);
    expect(code, output).toBe(0);
    expect(JSON.stringify(results)).toContain("Alice Example");
    expect(home.opened).toHaveLength(1);
    expect(exchanges("/oauth/register")).toHaveLength(1);
  });
});
