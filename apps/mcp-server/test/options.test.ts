import { readdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CommanderError } from "commander";
import { describe, expect, it } from "vitest";
import { type LoginOptions, program, type ServerOptions, type SigninSettings } from "../src/options/index.js";
import { settingsTables } from "../src/options/markdown.js";
import { GROUPS, type Group, settingsOf, text } from "../src/options/setting.js";
import { SETTINGS, TOOLKIT_VARIABLES } from "../src/options/table.js";
import type { AdminRequest, AdminSettings } from "../src/options/types.js";

interface Run {
  served?: ServerOptions;
  login?: [string, LoginOptions, SigninSettings];
  admin?: [AdminRequest, AdminSettings];
  out: string;
  err: string;
  code: number;
}

/** Parses `args` with `env` as the environment, recording what the commands were given. */
async function run(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const result: Run = { out: "", err: "", code: 0 };
  const cli = program(
    {
      serve: async (options) => {
        result.served = options;
      },
      login: async (...call) => {
        result.login = call;
        return 0;
      },
      logout: async () => 0,
      authStatus: async () => 0,
      admin: async (...call) => {
        result.admin = call;
        return 0;
      },
    },
    "1.2.3",
    env,
  );
  cli.configureOutput({
    writeOut: (text) => {
      result.out += text;
    },
    writeErr: (text) => {
      result.err += text;
    },
  });
  try {
    await cli.parseAsync(["node", "toolkits-mcp", ...args]);
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    result.code = error.exitCode;
  }
  return result;
}

const SECRETS = {
  MCP_HTTP_BEARER_TOKENS: "alice:bearer-secret-aaaaaaaaaaaaaaaaaaaaaaaaaaaa",
  MCP_STORE_KEY: "store-key-secret",
  MCP_STORE_KEY_PREVIOUS: "previous-key-secret",
  MCP_CONNECT_CLIENT_SECRET: "connect-secret",
  PAGER_OAUTH_CLIENT_SECRET: "pager-client-secret",
  GOOGLE_OAUTH_CLIENT_SECRET: "google-client-secret",
};

describe("the settings table", () => {
  it("reads a flag's variable when the flag is not given, and the flag wins over it", async () => {
    const { served } = await run(["--port", "9090"], { MCP_PORT: "8080", MCP_TRANSPORT: "http" });
    expect(served?.port).toBe(9090);
    expect(served?.transport).toBe("http");
  });

  it("falls back to the defaults", async () => {
    const { served } = await run([]);
    expect(served).toMatchObject({
      transport: "stdio",
      host: "127.0.0.1",
      port: 3000,
      toolkits: ["pager", "sheets", "marketing"],
      tools: [],
      readOnly: false,
      rateLimitWaitMs: 3000,
      upstream: { timeoutMs: 30_000, maxBytes: 20_000_000, maxRedirects: 3 },
      auth: {},
      storePath: join(homedir(), ".local", "state", "toolkits-mcp", "store.json"),
      tokenFile: join(homedir(), ".config", "toolkits-mcp", "tokens.json"),
      browser: true,
      toolkitEnv: {},
    });
    expect(served?.storeUrl).toBeUndefined();
  });

  it("counts a switch's variable only for 1, true or yes", async () => {
    for (const [value, on] of [
      ["1", true],
      ["true", true],
      ["YES", true],
      ["0", false],
      ["false", false],
      ["", false],
    ] as const) {
      expect((await run([], { MCP_READ_ONLY: value, MCP_SANDBOX: value })).served, value).toMatchObject({
        readOnly: on,
        sandbox: on,
      });
    }
    expect((await run(["--read-only"], { MCP_READ_ONLY: "no" })).served?.readOnly).toBe(true);
  });

  it("reads the settings without flags into their places, and passes the environment to the toolkits", async () => {
    const env = {
      ...SECRETS,
      MCP_OAUTH_ISSUER: "https://id.example",
      MCP_OAUTH_AUDIENCE: "mcp",
      MCP_OAUTH_JWKS_URL: "https://id.example/jwks",
      MCP_CONNECT_CLIENT_ID: "connect-id",
      PAGER_OAUTH_CLIENT_ID: "pager-id",
      PAGER_OAUTH_ISSUER: "https://pager-issuer.example",
      PAGER_REGION: "eu",
      GOOGLE_OAUTH_CLIENT_ID: "google-id",
      XDG_CONFIG_HOME: "/x/config",
      XDG_STATE_HOME: "/x/state",
      BROWSER: "none",
      MARKETING_API_KEY: "marketing-key",
    };
    const { served } = await run([], env);
    expect(served).toMatchObject({
      auth: {
        bearerTokens: SECRETS.MCP_HTTP_BEARER_TOKENS,
        oauthIssuer: "https://id.example",
        oauthAudience: "mcp",
        oauthJwksUrl: "https://id.example/jwks",
      },
      storeKey: SECRETS.MCP_STORE_KEY,
      storeKeyPrevious: SECRETS.MCP_STORE_KEY_PREVIOUS,
      connectClient: { id: "connect-id", secret: SECRETS.MCP_CONNECT_CLIENT_SECRET },
      oauthClients: {
        pager: {
          clientId: "pager-id",
          clientSecret: SECRETS.PAGER_OAUTH_CLIENT_SECRET,
          issuer: "https://pager-issuer.example",
          region: "eu",
        },
        google: { clientId: "google-id", clientSecret: SECRETS.GOOGLE_OAUTH_CLIENT_SECRET },
      },
      tokenFile: "/x/config/toolkits-mcp/tokens.json",
      storePath: "/x/state/toolkits-mcp/store.json",
      browser: false,
      toolkitEnv: env,
    });
  });

  it("refuses a malformed variable with exit code 2, naming it and what is allowed", async () => {
    const bad = await run([], { MCP_PORT: "abc" });
    expect(bad.code).toBe(2);
    expect(bad.served).toBeUndefined();
    expect(bad.err).toContain(
      "option '--port <port>' value 'abc' from env 'MCP_PORT' is invalid. It must be an integer from 0 to 65535",
    );
    const budgets = await run([], { MCP_RATE_LIMITS: "pager=lots" });
    expect(budgets.code).toBe(2);
    expect(budgets.err).toContain("from env 'MCP_RATE_LIMITS' is invalid. Rate limit \"pager=lots\"");
  });

  // A command's error (login's) keeps its usage: signin.login.test.ts.
  it("answers a bad command line with its one-line error and a pointer to --help, not the help", async () => {
    const pointer = "Run toolkits-mcp --help for every option, variable and command.";
    for (const [args, env] of [
      [["--toolkits", "pagr"], {}],
      [["--bogus"], {}],
      [[], { MCP_TOOLKITS: "pagr" }],
    ] as const) {
      const bad = await run([...args], env);
      // cli.ts exits with 2 for any of them.
      expect(bad.code).toBeGreaterThan(0);
      const lines = bad.err.trimEnd().split("\n");
      expect(lines, bad.err).toHaveLength(2);
      expect(lines[0]).toMatch(/^error: /);
      expect(lines[1]).toBe(pointer);
    }
  });

  it("gives secrets no flag, and help shows their names but never their values", async () => {
    const secrets = settingsOf(SETTINGS).filter((setting) => setting.secret);
    expect(secrets.map((setting) => setting.env).sort()).toEqual(Object.keys(SECRETS).sort());
    expect(secrets.filter((setting) => setting.flag)).toEqual([]);
    // Read as given and checked where used, so no parse error can quote one.
    expect(secrets.filter((setting) => setting.parse !== text)).toEqual([]);
    const help = await run(["--help"], SECRETS);
    expect(help.code).toBe(0);
    for (const [name, value] of Object.entries(SECRETS)) {
      expect(help.out).toContain(name);
      expect(help.out).not.toContain(value);
    }
    // The help rows of variables are not options.
    expect((await run(["--variable", "x"])).err).toContain("unknown option '--variable'");
  });

  it("documents every setting and toolkit variable in --help, one section per group in order", async () => {
    const { out } = await run(["--help"]);
    for (const setting of settingsOf(SETTINGS)) expect(out).toContain(setting.flag ?? setting.env);
    for (const variable of TOOLKIT_VARIABLES) expect(out).toContain(variable.env);
    const sections = GROUPS.map((group) => out.indexOf(`\n${group}:\n`));
    expect(sections.every((at) => at > 0)).toBe(true);
    expect(sections).toEqual([...sections].sort((a, b) => a - b));
  });

  it("gives login its options with BROWSER=none folded in, and the sign-in settings", async () => {
    const env = { BROWSER: "none", XDG_CONFIG_HOME: "/x/config", PAGER_OAUTH_CLIENT_ID: "pager-id" };
    const { login } = await run(["login", "pager", "--port", "8976"], env);
    expect(login).toEqual([
      "pager",
      { browser: false, port: 8976, timeoutSeconds: undefined, label: undefined, makeDefault: false },
      {
        tokenFile: "/x/config/toolkits-mcp/tokens.json",
        oauthClients: {
          pager: expect.objectContaining({ clientId: "pager-id" }),
          google: expect.any(Object),
        },
        toolkitEnv: env,
      },
    ]);
  });

  it("gives login an account label, and refuses one that is not a label", async () => {
    const { login } = await run(["login", "google", "--label", "work", "--default"]);
    expect(login?.[1]).toMatchObject({ label: "work", makeDefault: true });
    // A subcommand writes its errors to the process's stderr, not to the root's configured output.
    const bad = await run(["login", "pager", "--label", "Work Account"]);
    expect(bad.code).toBeGreaterThan(0);
    expect(bad.login).toBeUndefined();
  });

  it("reads --account and MCP_ACCOUNTS as each toolkit's account, by its provider", async () => {
    expect((await run(["--account", "pager=eu,sheets=work"])).served?.accounts).toEqual({
      pager: "eu",
      google: "work",
    });
    expect((await run([], { MCP_ACCOUNTS: "marketing=acme-us" })).served?.accounts).toEqual({
      marketing: "acme-us",
    });
    expect((await run([])).served?.accounts).toBeUndefined();
    // The provider's name, as `login google` has it, chooses too.
    expect((await run(["--account", "google=home"])).served?.accounts).toEqual({ google: "home" });
    expect((await run(["--account", "sheets=a,google=b"])).code).toBeGreaterThan(0);
    for (const [value, message] of [
      ["pager", "Each choice is <toolkit>=<label>"],
      ["pager=eu,pager=us", "chosen twice"],
      ["drive=me", "“drive” is not a toolkit with accounts"],
      ["pager=EU", "“EU” is not an account label"],
    ]) {
      const bad = await run(["--account", value as string]);
      expect(bad.code, value).toBeGreaterThan(0);
      expect(bad.err, value).toContain(message);
    }
  });

  it("reads --revalidate-interval and --grant-max-age as durations, and refuses others naming the range", async () => {
    const { served } = await run(["--revalidate-interval", "15m"], { MCP_GRANT_MAX_AGE: "7d" });
    expect(served?.auth).toMatchObject({ revalidateIntervalS: 900, grantMaxAgeS: 7 * 86_400 });
    const defaults = (await run([])).served?.auth;
    expect(defaults).toMatchObject({ revalidateIntervalS: 3_600, grantMaxAgeS: 30 * 86_400 });
    expect((await run(["--grant-max-age", "90"])).served?.auth.grantMaxAgeS).toBe(90);
    const bad = await run(["--revalidate-interval", "8d"]);
    expect(bad.code).toBeGreaterThan(0);
    expect(bad.err).toContain("It must be a duration from 1s to 7d");
  });

  it("gives admin its commands, each with the store settings and the OAuth clients to revoke at", async () => {
    const env = {
      MCP_STORE_URL: "redis://store:6379",
      MCP_STORE_KEY: "k",
      PAGER_OAUTH_CLIENT_ID: "pager-id",
    };
    const revoke = await run(["admin", "revoke", "token:alice", "--json"], env);
    expect(revoke.admin).toEqual([
      { command: "revoke", target: "token:alice", json: true },
      expect.objectContaining({
        storeUrl: "redis://store:6379",
        storeKey: "k",
        oauthClients: expect.objectContaining({ pager: expect.objectContaining({ clientId: "pager-id" }) }),
      }),
    ]);
    expect((await run(["admin", "people"], env)).admin?.[0]).toEqual({ command: "people" });
    expect((await run(["admin", "import", "-", "--merge"], env)).admin?.[0]).toEqual({
      command: "import",
      target: "-",
      merge: true,
    });
  });

  it("renders a group as a README table, escaping what Markdown would misread", () => {
    const table = settingsTables(["Authentication"]);
    expect(table.split("\n").slice(0, 2)).toEqual([
      "| Option | Variable | Default | Meaning |",
      "|---|---|---|---|",
    ]);
    expect(table).toContain("| `--oauth-issuer <url>` | `MCP_OAUTH_ISSUER` |  |");
    expect(table).toContain("| `--access-token-ttl <seconds>` | `MCP_ACCESS_TOKEN_TTL` | `3600` |");
    expect(table).toContain("alice:\\<token>");
    expect(() => settingsTables(["Nonsense" as Group])).toThrow("No settings group Nonsense");
  });
});

describe("process.env", () => {
  it("is read only by the settings table", () => {
    const src = fileURLToPath(new URL("../src", import.meta.url));
    const readers = readdirSync(src, { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".ts") && readFileSync(join(src, file), "utf8").includes("process.env"))
      .sort();
    expect(readers).toEqual(["options/table.ts"]);
  });
});
