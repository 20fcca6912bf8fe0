import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PROVIDERS } from "../src/credentials/providers.js";
import { TokenFile, tokenFilePath } from "../src/credentials/token-file.js";
import { login } from "../src/signin/login.js";
import { loginThroughBrowser, type MockIssuer, startMockIssuer } from "./signin/fixtures.js";
import { freePort, runCli } from "./spawn.js";

const GOOGLE_SCOPES = [
  "https://www.googleapis.com/auth/drive.file",
  "https://www.googleapis.com/auth/userinfo.email",
  "https://www.googleapis.com/auth/userinfo.profile",
];

let issuer: MockIssuer;
let configHome: string;
const pagerEnv = () => ({
  XDG_CONFIG_HOME: configHome,
  PAGER_OAUTH_ISSUER: issuer.url,
  PAGER_OAUTH_CLIENT_ID: "toolkits-login-test",
});

beforeAll(async () => {
  issuer = await startMockIssuer();
});
afterAll(() => issuer.stop());
beforeEach(async () => {
  if (configHome) await rm(configHome, { recursive: true, force: true });
  configHome = await mkdtemp(join(tmpdir(), "toolkits-login-"));
});

// Most of these spawn the built binary, which loads every toolkit: slow on a busy two-core machine.
describe("toolkits-mcp login", { timeout: 30_000 }, () => {
  it("asks Google for offline access, fresh consent and the scopes the sheets tools declare", async () => {
    const google = await startMockIssuer(GOOGLE_SCOPES.join(" "));
    try {
      const run = await loginThroughBrowser("google", {
        XDG_CONFIG_HOME: configHome,
        GOOGLE_OAUTH_ISSUER: google.url,
        GOOGLE_OAUTH_CLIENT_ID: "desktop-client",
        GOOGLE_OAUTH_CLIENT_SECRET: "desktop-client-secret",
      });
      expect(run.code, run.stderr).toBe(0);
      const query = new URL(run.authorizationUrl).searchParams;
      expect(query.get("access_type")).toBe("offline");
      expect(query.get("prompt")).toBe("consent");
      expect(query.get("scope")?.split(" ")).toEqual(GOOGLE_SCOPES);
      const stored = JSON.parse(await readFile(tokenFilePath({ XDG_CONFIG_HOME: configHome }), "utf8"));
      const { default: label, accounts } = stored.providers.google;
      expect(accounts[label].scopes).toEqual(GOOGLE_SCOPES);
      expect(accounts[label].client).toEqual({
        id: "desktop-client",
        secret: "desktop-client-secret",
      });
    } finally {
      await google.stop();
    }
  });

  it("reports a refusal by the authorization server and stores nothing", async () => {
    issuer.server.service.once("beforeAuthorizeRedirect", ({ url }) => {
      url.searchParams.delete("code");
      url.searchParams.set("error", "access_denied");
      url.searchParams.set("error_description", "The user said no");
    });
    const run = await loginThroughBrowser("pager", pagerEnv());
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "PagerDuty did not authorize the sign-in: access_denied (The user said no).",
    );
    expect(run.callbackStatus).toBe(400);
    expect(run.page).toContain("Sign-in failed");
    await expect(readFile(tokenFilePath({ XDG_CONFIG_HOME: configHome }))).rejects.toThrow("ENOENT");
  });

  it("ignores a callback with another state and completes with the right one", async () => {
    const store = new TokenFile(tokenFilePath({ XDG_CONFIG_HOME: configHome }));
    let printed = "";
    const client = { issuer: issuer.url, clientId: "toolkits-login-test" };
    const signingIn = login(PROVIDERS.pager, client, store, {
      openBrowser: false,
      port: 0,
      timeoutMs: 20_000,
      print: (text) => (printed += text),
    });
    await expect.poll(() => printed).toContain("http");
    const url = new URL(/https?:\/\/\S+/.exec(printed)?.[0] ?? "");
    const redirectUri = url.searchParams.get("redirect_uri") ?? "";
    const forged = await fetch(`${redirectUri}?code=forged&state=not-ours`);
    expect(forged.status).toBe(400);
    expect(await fetch(`${new URL(redirectUri).origin}/elsewhere`).then((r) => r.status)).toBe(404);
    const consent = await fetch(url, { redirect: "manual" });
    expect((await fetch(consent.headers.get("location") ?? "")).status).toBe(200);
    const signIn = await signingIn;
    expect(signIn.scopes).toEqual(["read"]);
    expect((await store.get("pager"))?.accessToken.reveal()).toBe(signIn.accessToken.reveal());
  });

  it("uses the EU hosts for PAGER_REGION=eu and a fixed --port, and gives up after --timeout", async () => {
    const port = await freePort();
    const run = await runCli(["login", "pager", "--no-browser", "--port", String(port), "--timeout", "1"], {
      XDG_CONFIG_HOME: configHome,
      PAGER_REGION: "eu",
      PAGER_OAUTH_CLIENT_ID: "eu-client",
    });
    expect(run.code).toBe(1);
    const url = new URL(/https:\/\/\S+/.exec(run.stderr)?.[0] ?? "");
    expect(url.origin + url.pathname).toBe("https://identity.eu.pagerduty.com/oauth/authorize");
    expect(url.searchParams.get("redirect_uri")).toBe(`http://127.0.0.1:${port}/callback`);
    expect(url.searchParams.get("scope")).toBe("read");
    expect(run.stderr).toContain("No answer from the browser within 1 s");
  });

  it("says so when the fixed --port is taken", async () => {
    const taken = createServer().listen(0, "127.0.0.1");
    await new Promise((resolve) => taken.once("listening", resolve));
    const { port } = taken.address() as { port: number };
    try {
      const run = await runCli(["login", "pager", "--no-browser", "--port", String(port)], pagerEnv());
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`Port ${port} on 127.0.0.1 is in use`);
    } finally {
      taken.close();
    }
  });

  it("names the missing client settings and where the README explains them", async () => {
    const run = await runCli(["login", "google", "--no-browser"], { XDG_CONFIG_HOME: configHome });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("GOOGLE_OAUTH_CLIENT_ID is not set");
    expect(run.stderr).toContain("GOOGLE_OAUTH_CLIENT_SECRET");
    expect(run.stderr).toContain("Sign-in section of the README");
  });

  it("answers a malformed command line with the usage and exit code 2", async () => {
    for (const args of [
      ["login"],
      ["login", "twitter"],
      ["auth", "whoami"],
      ["logout", "pager", "--bogus"],
    ]) {
      const run = await runCli(args, { XDG_CONFIG_HOME: configHome });
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr).toContain("Usage:");
    }
    const help = await runCli(["login", "--help"], { XDG_CONFIG_HOME: configHome });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain(join(configHome, "toolkits-mcp", "tokens.json"));
  });
});

describe("PagerDuty regions", () => {
  it("switches the OAuth hosts with PAGER_REGION and refuses an unknown region", () => {
    expect(PROVIDERS.pager.server(undefined).token_endpoint).toBe(
      "https://identity.pagerduty.com/oauth/token",
    );
    expect(PROVIDERS.pager.server("EU").token_endpoint).toBe("https://identity.eu.pagerduty.com/oauth/token");
    expect(() => PROVIDERS.pager.server("apac")).toThrow('PAGER_REGION is "apac"');
  });
});
