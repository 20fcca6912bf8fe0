// Connector URLs naming accounts (/mcp/pager@<label>) against the built server in shared mode,
// whose sign-ins are two PagerDuty accounts in the `login` token file: each URL acts as its account,
// the plain URL as the default, an unknown label like a missing sign-in, a malformed one 404.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectHttp } from "./clients.js";
import { type FakePagerDuty, startFakePagerDuty } from "./signin/fixtures.js";
import { type RunningServer, startHttpServer } from "./spawn.js";

/** A sign-in as the token file keeps it, its access token `token`, valid for a day. */
const signIn = (token: string) => ({
  access_token: token,
  expires_at: Date.now() + 86_400_000,
  scopes: ["read"],
  token_type: "bearer",
  obtained_at: Date.now(),
  server: { issuer: "http://127.0.0.1:9", token_endpoint: "http://127.0.0.1:9/token" },
  client: { id: "toolkits-e2e" },
});

describe("connector URLs choosing among this machine's sign-ins", { timeout: 60_000 }, () => {
  let pagerDuty: FakePagerDuty;
  let configHome: string;
  let server: RunningServer;
  let base: string;

  beforeAll(async () => {
    pagerDuty = await startFakePagerDuty();
    pagerDuty.users.set("Bearer ops-token", { id: "POPS", name: "Ops", email: "ops@acme.example" });
    pagerDuty.users.set("Bearer eu-token", { id: "PEU", name: "Eu", email: "eu@acme.example" });
    configHome = await mkdtemp(join(tmpdir(), "toolkits-connector-accounts-"));
    await mkdir(join(configHome, "toolkits-mcp"), { recursive: true });
    const file = {
      version: 2,
      providers: {
        pager: { default: "ops", accounts: { ops: signIn("ops-token"), eu: signIn("eu-token") } },
      },
    };
    await writeFile(join(configHome, "toolkits-mcp", "tokens.json"), JSON.stringify(file), { mode: 0o600 });
    server = await startHttpServer(["--toolkits", "pager"], {
      XDG_CONFIG_HOME: configHome,
      PAGER_API_URL: pagerDuty.url,
    });
    base = server.url.replace(/\/mcp$/, "");
  });

  afterAll(async () => {
    await server?.stop();
    await pagerDuty?.stop();
    await rm(configHome, { recursive: true, force: true });
  });

  /** `Pager_WhoAmI` at `path` with the v2 client: the user it answered as, and every text. */
  async function whoAmIAt(path: string) {
    const client = await connectHttp("v2", `${base}${path}`);
    try {
      const seen = await client.call("Pager_WhoAmI");
      return { ...seen, user: (seen.data?.user as { id?: string } | undefined)?.id };
    } finally {
      await client.close();
    }
  }

  it("acts as the account each URL names, and as the default at the plain URL", async () => {
    expect((await whoAmIAt("/mcp/pager@eu")).user).toBe("PEU");
    expect((await whoAmIAt("/mcp/pager@eu/readonly")).user).toBe("PEU");
    expect((await whoAmIAt("/mcp/pager@ops")).user).toBe("POPS");
    expect((await whoAmIAt("/mcp/pager")).user).toBe("POPS");
    expect((await whoAmIAt("/mcp")).user).toBe("POPS");
  });

  it("answers a label nobody signed in as like a missing sign-in, without calling PagerDuty", async () => {
    const calls = pagerDuty.authorizations.length;
    const answer = await whoAmIAt("/mcp/pager@apac");
    expect(answer.isError).toBe(true);
    expect(answer.text).toContain("unauthenticated");
    expect(answer.text).toContain("“apac”");
    expect(pagerDuty.authorizations.length).toBe(calls);
  });

  it("answers a malformed label 404, naming it and the form", async () => {
    const answer = await fetch(`${base}/mcp/pager@EU`, { method: "POST", body: "{}" });
    expect(answer.status).toBe(404);
    const body = await answer.text();
    expect(body).toContain("“EU” in “pager@EU” is not an account label");
    expect(body).toContain("Connector URLs take the form /mcp/<toolkit>[@<account>]");
  });
});
