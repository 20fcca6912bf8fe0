import { mkdtemp, readFile, rm } from "node:fs/promises";
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

interface StoredFile {
  version: number;
  providers: Record<string, { default: string; accounts: Record<string, { access_token: string }> }>;
}

/**
 * Two PagerDuty accounts signed in on one machine through the built binary: `login pager --label a`
 * and `--label b`, both listed by `auth status`; the stdio server acts as the one `--account` (or
 * `MCP_ACCOUNTS`) chooses, its default without a choice, and answers a label nobody signed in as
 * like a missing sign-in, without calling PagerDuty; `logout --label` removes one account only.
 */
describe("several sign-ins to one provider, end to end over stdio", { timeout: 60_000 }, () => {
  let issuer: MockIssuer;
  let pagerDuty: FakePagerDuty;
  let configHome: string;
  const env = () => ({
    XDG_CONFIG_HOME: configHome,
    PAGER_OAUTH_ISSUER: issuer.url,
    PAGER_OAUTH_CLIENT_ID: "toolkits-e2e",
  });
  const accounts = async () =>
    (JSON.parse(await readFile(join(configHome, "toolkits-mcp", "tokens.json"), "utf8")) as StoredFile)
      .providers.pager;

  /** Calls `Pager.WhoAmI` on a stdio server started with `args` and `extraEnv`. */
  async function whoAmI(args: string[], extraEnv: Record<string, string> = {}) {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "--toolkits", "pager", ...args],
      env: { XDG_CONFIG_HOME: configHome, PAGER_API_URL: pagerDuty.url, ...extraEnv },
      stderr: "pipe",
    });
    const client = new Client({ name: "accounts-e2e", version: "0.0.0" });
    await client.connect(transport);
    try {
      return await client.callTool({ name: "Pager.WhoAmI", arguments: {} });
    } finally {
      await client.close();
    }
  }
  const text = (result: unknown) =>
    ((result as { content: { text?: string }[] }).content ?? []).map((part) => part.text ?? "").join("\n");

  beforeAll(async () => {
    [issuer, pagerDuty] = await Promise.all([startMockIssuer(), startFakePagerDuty()]);
    configHome = await mkdtemp(join(tmpdir(), "toolkits-accounts-e2e-"));
  });

  afterAll(async () => {
    await Promise.all([issuer?.stop(), pagerDuty?.stop()]);
    await rm(configHome, { recursive: true, force: true });
  });

  it("signs in twice with labels, the first the default, and auth status lists both", async () => {
    const a = await loginThroughBrowser("pager", env(), ["--label", "a"]);
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout).toContain("Kept as the account “a”, pager's default.");
    const b = await loginThroughBrowser("pager", env(), ["--label", "b"]);
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout).toContain("Kept as the account “b”.");

    const stored = await accounts();
    expect(stored?.default).toBe("a");
    expect(Object.keys(stored?.accounts ?? {})).toEqual(["a", "b"]);
    pagerDuty.users.set(`Bearer ${stored?.accounts.a?.access_token}`, {
      id: "PALICE",
      name: "Alice",
      email: "alice@a.example",
    });
    pagerDuty.users.set(`Bearer ${stored?.accounts.b?.access_token}`, {
      id: "PBOB",
      name: "Bob",
      email: "bob@b.example",
    });

    const status = await runCli(["auth", "status"], { XDG_CONFIG_HOME: configHome });
    expect(status.code).toBe(0);
    expect(status.stdout).toContain("pager (PagerDuty): 2 accounts");
    expect(status.stdout).toMatch(/^ {2}a \(default\): signed in at /m);
    expect(status.stdout).toMatch(/^ {2}b: signed in at /m);
    for (const token of issuer.issued) expect(status.stdout).not.toContain(token);
  });

  it("acts as the account --account or MCP_ACCOUNTS chooses, the default without a choice", async () => {
    const chosen = await whoAmI(["--account", "pager=b"]);
    expect(chosen.isError, JSON.stringify(chosen)).toBeFalsy();
    expect(chosen.structuredContent).toMatchObject({ user: { id: "PBOB" } });
    // The model reads which account answered; the structured content is the tool's own.
    expect(text(chosen)).toContain("Answered by the PagerDuty account “b” (not the default).");
    expect(chosen._meta).toMatchObject({
      "io.github.agent-toolkits/account": { provider: "pager", label: "b", default: false },
    });

    const byVariable = await whoAmI([], { MCP_ACCOUNTS: "pager=a" });
    expect(byVariable.structuredContent).toMatchObject({ user: { id: "PALICE" } });

    const unchosen = await whoAmI([]);
    expect(unchosen.structuredContent).toMatchObject({ user: { id: "PALICE" } });
    expect(text(unchosen)).toContain("Answered by the PagerDuty account “a” (the default).");
  });

  it("answers a label nobody signed in as like a missing sign-in, never with another account", async () => {
    const calls = pagerDuty.authorizations.length;
    const result = await whoAmI(["--account", "pager=c"]);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("unauthenticated");
    expect(text(result)).toContain("“c”");
    expect(text(result)).toContain("toolkits-mcp login pager --label c");
    expect(pagerDuty.authorizations.length).toBe(calls);
  });

  it("refuses a malformed --account before serving", async () => {
    const run = await runCli(["--account", "pager=B"], { XDG_CONFIG_HOME: configHome });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("not an account label");
    const unknown = await runCli(["--account", "drive=work"], { XDG_CONFIG_HOME: configHome });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("pager, sheets, marketing");
  });

  it("logs out of one account only, the other becoming the default", async () => {
    const logout = await runCli(["logout", "pager", "--label", "a"], { XDG_CONFIG_HOME: configHome });
    expect(logout.code, logout.stderr).toBe(0);
    expect(logout.stdout).toContain("(the account “a”). “b” is now pager's default.");
    expect(Object.keys((await accounts())?.accounts ?? {})).toEqual(["b"]);
    const status = await runCli(["auth", "status"], { XDG_CONFIG_HOME: configHome });
    expect(status.stdout).toContain("pager (PagerDuty): 1 account");
    expect(status.stdout).toMatch(/^ {2}b \(default\): signed in at /m);
    const unchosen = await whoAmI([]);
    expect(unchosen.structuredContent).toMatchObject({ user: { id: "PBOB" } });
  });
});
