import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@toolkits/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { environmentHost } from "../src/host.js";
import { TokenStore, tokenFilePath } from "../src/signin/store.js";
import { sampleSignIn } from "./signin/samples.js";

let configHome: string;
let store: TokenStore;

beforeEach(async () => {
  configHome = await mkdtemp(join(tmpdir(), "toolkits-store-"));
  store = new TokenStore(tokenFilePath({ XDG_CONFIG_HOME: configHome }));
});

afterEach(() => rm(configHome, { recursive: true, force: true }));

describe("tokenFilePath", () => {
  it("uses XDG_CONFIG_HOME when absolute, else ~/.config", () => {
    expect(tokenFilePath({ XDG_CONFIG_HOME: "/x/config" })).toBe("/x/config/toolkits-mcp/tokens.json");
    const fallback = join(homedir(), ".config", "toolkits-mcp", "tokens.json");
    expect(tokenFilePath({ XDG_CONFIG_HOME: "relative/config" })).toBe(fallback);
    expect(tokenFilePath({})).toBe(fallback);
  });
});

describe("TokenStore", () => {
  it("writes the file with mode 0600 in a 0700 directory, tightening an existing directory", async () => {
    await mkdir(join(configHome, "toolkits-mcp"), { mode: 0o755 });
    await chmod(join(configHome, "toolkits-mcp"), 0o755);
    await store.put("pager", sampleSignIn("first"));
    expect((await stat(store.path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(configHome, "toolkits-mcp"))).mode & 0o777).toBe(0o700);
    const file = JSON.parse(await readFile(store.path, "utf8"));
    expect(file).toMatchObject({
      version: 1,
      providers: {
        pager: { access_token: "first-access", refresh_token: "first-refresh", scopes: ["read"] },
      },
    });
    expect(typeof file.providers.pager.expires_at).toBe("number");
    expect(typeof file.providers.pager.obtained_at).toBe("number");
  });

  it("reads sign-ins back with every credential wrapped so it never prints", async () => {
    await store.put("pager", sampleSignIn("wrapped"));
    const signIn = await store.get("pager");
    expect(signIn?.accessToken.reveal()).toBe("wrapped-access");
    const printed = `${JSON.stringify(signIn)} ${String(signIn?.refreshToken)}`;
    for (const value of ["wrapped-access", "wrapped-refresh", "wrapped-secret"])
      expect(printed).not.toContain(value);
  });

  it("keeps the other providers when one is stored or removed", async () => {
    await store.put("pager", sampleSignIn("pager"));
    await store.put(
      "google",
      sampleSignIn("google", { scopes: ["https://www.googleapis.com/auth/drive.file"] }),
    );
    expect(Object.keys(await store.all()).sort()).toEqual(["google", "pager"]);
    expect(await store.remove("pager")).toBe(true);
    expect(await store.remove("pager")).toBe(false);
    expect(Object.keys(await store.all())).toEqual(["google"]);
  });

  it("replaces the file atomically: concurrent writers and readers never see a partial file", async () => {
    const writes = Array.from({ length: 25 }, (_, index) =>
      store.put(`provider${index % 5}`, sampleSignIn(`v${index}`)),
    );
    const other = new TokenStore(store.path); // a second process's view
    const reads = Array.from({ length: 25 }, () => other.all().catch((error: Error) => error));
    const results = await Promise.all([...writes, ...reads]);
    for (const result of results) expect(result).not.toBeInstanceOf(Error);
    expect(await readdir(join(configHome, "toolkits-mcp"))).toEqual(["tokens.json"]); // no temporary files left
    expect(Object.keys(await store.all())).toHaveLength(5);
  });

  it("is empty without a file, and names the file (never its contents) when it is corrupt", async () => {
    expect(await store.all()).toEqual({});
    await mkdir(join(configHome, "toolkits-mcp"), { recursive: true });
    await writeFile(store.path, '{"version":1,"providers":{"pager":{"access_token":"leaky-token-value"}}}');
    const error = await store.get("pager").catch((caught: Error) => caught);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain(store.path);
    expect((error as Error).message).toContain("toolkits-mcp login");
    expect((error as Error).message).not.toContain("leaky-token-value");
    await writeFile(store.path, "not json");
    await expect(store.all()).rejects.toThrow("not JSON");
  });
});

describe("token precedence in the server's host", () => {
  const hostOptions = { logger: silentLogger, maxResultBytes: 100_000 };
  it("prefers <PROVIDER>_ACCESS_TOKEN from the environment over the store", async () => {
    await store.put("pager", sampleSignIn("stored"));
    const env = { XDG_CONFIG_HOME: configHome };
    const fromStore = environmentHost(hostOptions, env);
    expect(await fromStore.tokens("pager", ["users.read"])).toBe("stored-access");
    expect(await fromStore.tokens("google", [])).toBeUndefined();
    const fromEnv = environmentHost(hostOptions, {
      ...env,
      PAGER_ACCESS_TOKEN: "from-environment",
    });
    expect(await fromEnv.tokens("pager", ["users.read"])).toBe("from-environment");
  });
});
