import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { silentLogger } from "@toolkits/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tokensFrom } from "../src/credentials/local.js";
import { TokenFile, tokenFilePath } from "../src/credentials/token-file.js";
import { environmentHost } from "../src/host.js";
import { sampleSignIn } from "./signin/samples.js";

let configHome: string;
let store: TokenFile;

beforeEach(async () => {
  configHome = await mkdtemp(join(tmpdir(), "toolkits-store-"));
  store = new TokenFile(tokenFilePath({ XDG_CONFIG_HOME: configHome }));
});

/** The providers the file holds a grant of, as written. */
const storedProviders = async () =>
  Object.keys(JSON.parse(await readFile(store.path, "utf8")).providers).sort();

afterEach(() => rm(configHome, { recursive: true, force: true }));

describe("tokenFilePath", () => {
  it("uses XDG_CONFIG_HOME when absolute, else ~/.config", () => {
    expect(tokenFilePath({ XDG_CONFIG_HOME: "/x/config" })).toBe("/x/config/toolkits-mcp/tokens.json");
    const fallback = join(homedir(), ".config", "toolkits-mcp", "tokens.json");
    expect(tokenFilePath({ XDG_CONFIG_HOME: "relative/config" })).toBe(fallback);
    expect(tokenFilePath({})).toBe(fallback);
  });
});

describe("the token file", () => {
  it("writes the file with mode 0600 in a 0700 directory, tightening an existing directory", async () => {
    await mkdir(join(configHome, "toolkits-mcp"), { mode: 0o755 });
    await chmod(join(configHome, "toolkits-mcp"), 0o755);
    await store.save(sampleSignIn("first"));
    expect((await stat(store.path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(configHome, "toolkits-mcp"))).mode & 0o777).toBe(0o700);
    const file = JSON.parse(await readFile(store.path, "utf8"));
    expect(file).toMatchObject({
      version: 2,
      providers: {
        pager: {
          default: "default",
          accounts: {
            default: { access_token: "first-access", refresh_token: "first-refresh", scopes: ["read"] },
          },
        },
      },
    });
    expect(typeof file.providers.pager.accounts.default.expires_at).toBe("number");
    expect(typeof file.providers.pager.accounts.default.obtained_at).toBe("number");
  });

  it("reads sign-ins back with every credential wrapped so it never prints", async () => {
    await store.save(sampleSignIn("wrapped"));
    const signIn = await store.get("pager");
    expect(signIn?.accessToken.reveal()).toBe("wrapped-access");
    const printed = `${JSON.stringify(signIn)} ${String(signIn?.refreshToken)}`;
    for (const value of ["wrapped-access", "wrapped-refresh", "wrapped-secret"])
      expect(printed).not.toContain(value);
  });

  it("keeps the other providers when one is stored or removed", async () => {
    await store.save(sampleSignIn("pager"));
    await store.save(
      sampleSignIn("google", { provider: "google", scopes: ["https://www.googleapis.com/auth/drive.file"] }),
    );
    expect(await storedProviders()).toEqual(["google", "pager"]);
    expect((await store.remove("pager"))?.accessToken.reveal()).toBe("pager-access");
    expect(await store.remove("pager")).toBeUndefined();
    expect(await storedProviders()).toEqual(["google"]);
  });

  it("replaces the file atomically: concurrent writers and readers never see a partial file", async () => {
    // Two writers that share no memory, as two processes would, each writing one provider.
    const writers = [store, new TokenFile(store.path)];
    const writes = Array.from({ length: 24 }, (_, index) =>
      writers[index % 2]?.save(sampleSignIn(`v${index}`, { provider: index % 2 ? "google" : "pager" })),
    );
    const other = new TokenFile(store.path); // a third process's view
    const reads = Array.from({ length: 24 }, (_, index) =>
      other.get(index % 2 ? "google" : "pager").catch((error: Error) => error),
    );
    const results = await Promise.all([...writes, ...reads]);
    for (const result of results) expect(result).not.toBeInstanceOf(Error);
    // No temporary file or lock left, and neither writer lost the other's last write.
    expect(await readdir(join(configHome, "toolkits-mcp"))).toEqual(["tokens.json"]);
    expect(await storedProviders()).toEqual(["google", "pager"]);
    expect((await other.get("pager"))?.accessToken.reveal()).toBe("v22-access");
    expect((await other.get("google"))?.accessToken.reveal()).toBe("v23-access");
  });

  it("is empty without a file, and names the file (never its contents) when it is corrupt", async () => {
    expect(await store.get("pager")).toBeUndefined();
    await mkdir(join(configHome, "toolkits-mcp"), { recursive: true });
    await writeFile(store.path, '{"version":1,"providers":{"pager":{"access_token":"leaky-token-value"}}}');
    const error = await store.get("pager").catch((caught: Error) => caught);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain(store.path);
    expect((error as Error).message).toContain("toolkits-mcp login");
    expect((error as Error).message).not.toContain("leaky-token-value");
    await writeFile(store.path, "not json");
    await expect(store.get("google")).rejects.toThrow("not JSON");
  });

  it("opens a version-1 file as each provider's single account, and writes it back as version 2 unchanged", async () => {
    const today = {
      version: 1,
      providers: {
        pager: {
          access_token: "legacy-access",
          refresh_token: "legacy-refresh",
          expires_at: Date.now() + 3_600_000,
          scopes: ["read"],
          token_type: "bearer",
          obtained_at: 1_767_225_600_000,
          server: {
            issuer: "https://identity.pagerduty.com",
            token_endpoint: "https://identity.pagerduty.com/oauth/token",
            revocation_endpoint: "https://identity.pagerduty.com/oauth/revoke",
          },
          client: { id: "legacy-client", secret: "legacy-secret" },
        },
      },
    };
    await mkdir(join(configHome, "toolkits-mcp"), { recursive: true });
    await writeFile(store.path, `${JSON.stringify(today, null, 2)}\n`);

    const pager = await store.get("pager");
    expect(await store.get("pager", "default")).toEqual(pager);
    expect(pager).toMatchObject({
      label: "default",
      provider: "pager",
      scopes: ["read"],
      tokenType: "bearer",
      connectedAt: 1_767_225_600_000,
      expiresAt: today.providers.pager.expires_at,
      server: today.providers.pager.server,
      client: { id: "legacy-client" },
    });
    expect(pager?.refreshToken?.reveal()).toBe("legacy-refresh");
    expect(pager?.client.secret?.reveal()).toBe("legacy-secret");
    expect(await tokensFrom(store, silentLogger)("pager", ["users.read"])).toBe("legacy-access");

    await store.save(sampleSignIn("google", { provider: "google" }));
    const written = JSON.parse(await readFile(store.path, "utf8"));
    expect(written.version).toBe(2);
    expect(written.providers.pager).toEqual({
      default: "default",
      accounts: { default: today.providers.pager },
    });
    expect(Object.keys(written.providers.google.accounts.default)).toEqual(
      Object.keys(today.providers.pager),
    );
  });

  it("lets one holder at a time take an account's refresh lock, across instances", async () => {
    await store.save(sampleSignIn("locked"));
    const other = new TokenFile(store.path); // another process's view
    const release = await store.lock("pager", "eu", 30_000);
    expect(release).toBeDefined();
    expect(await other.lock("pager", "eu", 30_000)).toBeUndefined();
    const google = await other.lock("google", "eu", 30_000);
    const us = await other.lock("pager", "us", 30_000);
    expect(google).toBeDefined();
    expect(us).toBeDefined();
    await release?.();
    const again = await other.lock("pager", "eu", 30_000);
    expect(again).toBeDefined();
    await Promise.all([google?.(), us?.(), again?.()]);
    expect(await readdir(join(configHome, "toolkits-mcp"))).toEqual(["tokens.json"]);
  });

  it("removes an account only once a refresh another process has under way is saved: logout never leaves it behind", async () => {
    const label = await store.save(sampleSignIn("before"));
    const refreshing = new TokenFile(store.path); // another process, refreshing the account
    const release = await refreshing.lock("pager", label, 30_000);
    const removing = store.remove("pager");
    await Promise.race([removing, sleep(300)]);
    await refreshing.save({ ...sampleSignIn("renewed"), label });
    await release?.();
    expect((await removing)?.accessToken.reveal()).toBe("renewed-access");
    expect(await store.list("pager")).toEqual([]);
  });

  it("renames an account in one change, after a refresh another process has under way is saved", async () => {
    const first = await store.save(sampleSignIn("first"));
    const second = await store.save({ ...sampleSignIn("second"), label: "second" });
    const refreshing = new TokenFile(store.path);
    const release = await refreshing.lock("pager", first, 30_000);
    const renaming = store.rename("pager", first, "eu");
    await Promise.race([renaming, sleep(300)]);
    await refreshing.save({ ...sampleSignIn("renewed"), label: first });
    await release?.();
    expect(await renaming).toBe(true);
    const accounts = await store.list("pager");
    expect(accounts.map((grant) => [grant.label, grant.accessToken.reveal()])).toEqual([
      ["eu", "renewed-access"],
      [second, "second-access"],
    ]);
    expect(await store.rename("pager", "eu", second)).toBe(false);
    expect(await store.rename("pager", "nobody", "x")).toBe(false);
  });
});

describe("token precedence in the server's host", () => {
  const hostOptions = { logger: silentLogger, maxResultBytes: 100_000 };
  it("prefers <PROVIDER>_ACCESS_TOKEN from the environment over the store", async () => {
    await store.save(sampleSignIn("stored"));
    const env = { XDG_CONFIG_HOME: configHome };
    const fromStore = environmentHost(hostOptions, env, tokenFilePath(env));
    expect(await fromStore.tokens("pager", ["users.read"])).toBe("stored-access");
    expect(await fromStore.tokens("google", [])).toBeUndefined();
    const fromEnv = environmentHost(
      hostOptions,
      { ...env, PAGER_ACCESS_TOKEN: "from-environment" },
      tokenFilePath(env),
    );
    expect(await fromEnv.tokens("pager", ["users.read"])).toBe("from-environment");
  });
});
