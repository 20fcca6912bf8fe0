import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FakePagerDuty,
  loginThroughBrowser,
  type MockIssuer,
  startFakePagerDuty,
  startMockIssuer,
} from "./signin/fixtures.js";
import { CLI, runCli } from "./spawn.js";

/** A client secret, to show it never reaches an output either. */
const CLIENT_SECRET = "client-secret-for-the-e2e-test";

interface StoredAccount {
  access_token: string;
  refresh_token?: string;
  expires_at?: number;
  scopes: string[];
  token_type: string;
}

interface StoredFile {
  version: number;
  providers: Record<string, { default: string; accounts: Record<string, StoredAccount> }>;
}

/**
 * The whole sign-in flow through the built binary: `login pager` against a real local OAuth
 * server, the tokens used by a tool call of the stdio server, expiry then refresh, a revoked
 * refresh token, `auth status` and `logout`; no token in any output.
 */
// Each step spawns the built binary, which loads every toolkit: slow on a busy two-core machine.
describe("sign-in end to end", { timeout: 30_000 }, () => {
  let issuer: MockIssuer;
  let pagerDuty: FakePagerDuty;
  let configHome: string;
  let client: Client;
  /** Everything any process wrote or the MCP client received. */
  const outputs: string[] = [];
  let serverStderr = "";

  const env = () => ({
    XDG_CONFIG_HOME: configHome,
    PAGER_OAUTH_ISSUER: issuer.url,
    PAGER_OAUTH_CLIENT_ID: "toolkits-e2e",
    PAGER_OAUTH_CLIENT_SECRET: CLIENT_SECRET,
  });
  const tokenFile = () => join(configHome, "toolkits-mcp", "tokens.json");
  /** The default PagerDuty account's record, as the file holds it. */
  const stored = async () => {
    const pager = (JSON.parse(await readFile(tokenFile(), "utf8")) as StoredFile).providers.pager;
    return pager?.accounts[pager.default];
  };
  const login = async () => {
    const run = await loginThroughBrowser("pager", env());
    outputs.push(run.stdout, run.stderr, run.page);
    expect(run.code, run.stderr).toBe(0);
    return run;
  };
  const whoAmI = async () => {
    const result = await client.callTool({ name: "Pager.WhoAmI", arguments: {} });
    outputs.push(JSON.stringify(result));
    return result;
  };
  const lastBearer = () => pagerDuty.authorizations.at(-1);

  beforeAll(async () => {
    [issuer, pagerDuty] = await Promise.all([startMockIssuer(), startFakePagerDuty()]);
    configHome = await mkdtemp(join(tmpdir(), "toolkits-signin-"));
  });

  afterAll(async () => {
    await client?.close();
    await Promise.all([issuer?.stop(), pagerDuty?.stop()]);
    await rm(configHome, { recursive: true, force: true });
  });

  it("signs in with PKCE through the loopback redirect and stores the tokens with mode 0600", async () => {
    const run = await login();
    const authorizationUrl = new URL(run.authorizationUrl);
    expect(run.stderr).toContain("sign in to PagerDuty");
    expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorizationUrl.searchParams.get("scope")).toBe("read");
    expect(authorizationUrl.searchParams.get("redirect_uri")).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/callback$/,
    );
    expect(run.callbackStatus).toBe(200);
    expect(run.page).toContain("Signed in to PagerDuty");
    expect(run.stdout).toMatch(/^Signed in to PagerDuty \(scopes: read\)\./);

    const exchange = issuer.tokenRequests.at(-1);
    expect(exchange?.grant_type).toBe("authorization_code");
    expect(exchange?.code_verifier).toMatch(/^[A-Za-z0-9_~.-]{43,128}$/);

    const record = await stored();
    expect(issuer.issued).toContain(record?.access_token);
    expect(issuer.issued).toContain(record?.refresh_token);
    expect(record?.scopes).toEqual(["read"]);
    expect(record?.expires_at).toBeGreaterThan(Date.now() + 50 * 60_000);
    expect((await stat(tokenFile())).mode & 0o777).toBe(0o600);
    expect((await stat(join(configHome, "toolkits-mcp"))).mode & 0o777).toBe(0o700);
  });

  it("calls a tool with the stored access token", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "--toolkits", "pager", "--log-level", "debug"],
      env: { XDG_CONFIG_HOME: configHome, PAGER_API_URL: pagerDuty.url },
      stderr: "pipe",
    });
    transport.stderr?.on("data", (chunk) => (serverStderr += chunk));
    client = new Client({ name: "signin-e2e", version: "0.0.0" });
    await client.connect(transport);
    const before = issuer.tokenRequests.length;

    const result = await whoAmI();
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ user: { id: "PUSER01" }, on_call_now: false });
    expect(lastBearer()).toBe(`Bearer ${(await stored())?.access_token}`);
    expect(issuer.tokenRequests.length).toBe(before);
  });

  it("refreshes an expiring access token once, uses the new one and saves it", async () => {
    issuer.shortLivedNext(30); // inside the refresh margin: stale as soon as it is stored
    await login();
    const expiring = await stored();
    const before = issuer.tokenRequests.length;

    // Concurrent calls share one refresh.
    const results = await Promise.all([whoAmI(), whoAmI(), whoAmI()]);
    for (const result of results) expect(result.isError, JSON.stringify(result)).toBeFalsy();
    const refreshes = issuer.tokenRequests.slice(before);
    expect(refreshes).toHaveLength(1);
    expect(refreshes[0]).toMatchObject({
      grant_type: "refresh_token",
      refresh_token: expiring?.refresh_token,
    });

    const renewed = await stored();
    expect(renewed?.access_token).not.toBe(expiring?.access_token);
    expect(issuer.issued).toContain(renewed?.access_token);
    expect(renewed?.refresh_token).not.toBe(expiring?.refresh_token); // the mock rotates them
    expect(renewed?.expires_at).toBeGreaterThan(Date.now() + 50 * 60_000);
    expect(lastBearer()).toBe(`Bearer ${renewed?.access_token}`);

    // Fresh again: the next call refreshes nothing.
    await whoAmI();
    expect(issuer.tokenRequests.length).toBe(before + 1);
  });

  it("answers a revoked refresh token with an error saying to log in again", async () => {
    issuer.shortLivedNext(1);
    await login();
    const calls = pagerDuty.authorizations.length;
    issuer.server.service.once("beforeResponse", (response) => {
      response.statusCode = 400;
      response.body = { error: "invalid_grant", error_description: "refresh token revoked" };
    });

    const result = await whoAmI();
    expect(result.isError).toBe(true);
    const text = (result.content as { type: string; text: string }[])[0]?.text ?? "";
    expect(text).toContain("unauthenticated");
    expect(text).toContain("toolkits-mcp login pager");
    expect(pagerDuty.authorizations.length).toBe(calls); // PagerDuty was never called
  });

  it("reports the sign-in in auth status, then logs out, revoking the grant", async () => {
    const status = await runCli(["auth", "status"], { XDG_CONFIG_HOME: configHome });
    outputs.push(status.stdout, status.stderr);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain("pager (PagerDuty): 1 account");
    expect(status.stdout).toContain("default (default): signed in at");
    expect(status.stdout).toContain("scopes: read");
    expect(status.stdout).toContain("refresh token: held");
    expect(status.stdout).toContain("google (Google): not signed in");

    const revocations = issuer.revocations;
    const logout = await runCli(["logout", "pager"], { XDG_CONFIG_HOME: configHome });
    outputs.push(logout.stdout, logout.stderr);
    expect(logout.code).toBe(0);
    expect(logout.stdout).toMatch(/^Signed out of PagerDuty and revoked its tokens/);
    expect(issuer.revocations).toBe(revocations + 1);
    expect(await stored()).toBeUndefined();

    const after = await runCli(["auth", "status"], { XDG_CONFIG_HOME: configHome });
    outputs.push(after.stdout, after.stderr);
    expect(after.stdout).toContain("pager (PagerDuty): not signed in");
    const again = await runCli(["logout", "pager"], { XDG_CONFIG_HOME: configHome });
    expect(again.stdout).toBe("Not signed in to PagerDuty.\n");
  });

  it("never writes a token or the client secret to any output or log", async () => {
    await client.close();
    outputs.push(serverStderr);
    expect(serverStderr).toContain("refreshed the PagerDuty sign-in"); // the log was captured
    const everything = outputs.join("\n");
    expect(issuer.issued.length).toBeGreaterThan(8);
    for (const token of issuer.issued) expect(everything).not.toContain(token);
    expect(everything).not.toContain(CLIENT_SECRET);
  });
});
