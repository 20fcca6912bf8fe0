import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger, ToolError } from "@toolkits/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { withChosenAccounts } from "../src/credentials/choice.js";
import { isLabel, labelCandidates, labelFor, labelFrom } from "../src/credentials/labels.js";
import { tokensFrom } from "../src/credentials/local.js";
import { TokenFile, tokenFilePath } from "../src/credentials/token-file.js";
import { environmentHost } from "../src/host.js";
import { sampleSignIn } from "./signin/samples.js";

let configHome: string;
let store: TokenFile;

beforeEach(async () => {
  configHome = await mkdtemp(join(tmpdir(), "toolkits-accounts-"));
  store = new TokenFile(tokenFilePath({ XDG_CONFIG_HOME: configHome }));
});

afterEach(() => rm(configHome, { recursive: true, force: true }));

const access = (grant: { accessToken: { reveal(): string } } | undefined) => grant?.accessToken.reveal();

describe("account labels", () => {
  it("accepts lowercase names safe in a URL path, and nothing else", () => {
    for (const good of ["eu", "work", "acme-us", "a", "x.y_z-1", "0day", "a".repeat(40)])
      expect(isLabel(good), good).toBe(true);
    for (const bad of ["", "EU", "-eu", ".eu", "a b", "a/b", "a@b", "a+b", "a:b", "a,b", "é", "a".repeat(41)])
      expect(isLabel(bad), bad).toBe(false);
  });

  it("derives labels from what identifies an account", () => {
    expect(labelFrom("Acme Corp (US)")).toBe("acme-corp-us");
    expect(labelFrom("---")).toBeUndefined();
    expect(labelCandidates("Alice.Smith@Example.com")).toEqual(["alice.smith", "alice.smith-example.com"]);
    expect(labelCandidates("acme")).toEqual(["acme"]);
    expect(labelCandidates(undefined)).toEqual(["default"]);
  });

  it("keeps an account's label, and names a new account with the first free candidate", () => {
    const held = new Map([
      ["alice", "alice@example.com"],
      ["alice-other.org", "alice@other.org"],
    ]);
    expect(labelFor("alice@example.com", held)).toBe("alice");
    expect(labelFor("alice@third.net", held)).toBe("alice-third.net");
    expect(labelFor("bob@example.com", held)).toBe("bob");
    const taken = new Map([
      ["alice", "alice@a.com"],
      ["alice-b.com", "x"],
    ]);
    expect(labelFor("alice@b.com", taken)).toBe("alice-b.com-2");
  });
});

describe("several accounts in the token file", () => {
  it("keeps each account under its label, the first connected the default", async () => {
    expect(await store.save(sampleSignIn("eu", { label: "eu" }))).toBe("eu");
    expect(await store.save(sampleSignIn("us", { label: "us" }))).toBe("us");
    expect(access(await store.get("pager"))).toBe("eu-access");
    expect(access(await store.get("pager", "us"))).toBe("us-access");
    expect(await store.get("pager", "apac")).toBeUndefined();
    expect((await store.list("pager")).map((grant) => grant.label)).toEqual(["eu", "us"]);
    const file = JSON.parse(await readFile(store.path, "utf8"));
    expect(file.version).toBe(2);
    expect(file.providers.pager.default).toBe("eu");
    expect(Object.keys(file.providers.pager.accounts)).toEqual(["eu", "us"]);
  });

  it("names an unlabelled sign-in from its account, the same account keeping its label", async () => {
    expect(await store.save(sampleSignIn("a", { provider: "google", account: "alice@work.com" }))).toBe(
      "alice",
    );
    expect(await store.save(sampleSignIn("b", { provider: "google", account: "alice@home.org" }))).toBe(
      "alice-home.org",
    );
    expect(await store.save(sampleSignIn("c", { provider: "google", account: "alice@work.com" }))).toBe(
      "alice",
    );
    expect(access(await store.get("google", "alice"))).toBe("c-access");
    expect((await store.get("google", "alice-home.org"))?.account).toBe("alice@home.org");
  });

  it("removes one account only; a removed default passes to the earliest connected of the rest", async () => {
    await store.save(sampleSignIn("one", { label: "one", connectedAt: 1 }));
    await store.save(sampleSignIn("three", { label: "three", connectedAt: 3 }));
    await store.save(sampleSignIn("two", { label: "two", connectedAt: 2 }));
    expect(access(await store.remove("pager", "three"))).toBe("three-access");
    expect(access(await store.get("pager"))).toBe("one-access");
    expect(access(await store.remove("pager"))).toBe("one-access");
    expect((await store.list("pager")).map((grant) => grant.label)).toEqual(["two"]);
    expect(access(await store.get("pager"))).toBe("two-access");
    expect(await store.remove("pager", "nope")).toBeUndefined();
    await store.remove("pager", "two");
    expect(JSON.parse(await readFile(store.path, "utf8")).providers).toEqual({});
  });

  it("makes another account the default on request", async () => {
    await store.save(sampleSignIn("eu", { label: "eu" }));
    await store.save(sampleSignIn("us", { label: "us" }));
    expect(await store.makeDefault("pager", "us")).toBe(true);
    expect(await store.makeDefault("pager", "apac")).toBe(false);
    expect(access(await store.get("pager"))).toBe("us-access");
    expect((await store.list("pager")).map((grant) => grant.label)).toEqual(["us", "eu"]);
  });

  it("refuses a version-2 file whose label is not one, naming the path and never a value", async () => {
    await mkdir(join(configHome, "toolkits-mcp"), { recursive: true });
    const record = sampleFileRecord("secret-value");
    await writeFile(
      store.path,
      JSON.stringify({ version: 2, providers: { pager: { default: "EU", accounts: { EU: record } } } }),
    );
    const error = await store.get("pager").catch((caught: Error) => caught);
    expect((error as Error).message).toContain("not a label");
    expect((error as Error).message).not.toContain("secret-value");
  });
});

describe("choosing an account", () => {
  it("serves the chosen label's token, and never another account's when the label is missing", async () => {
    await store.save(sampleSignIn("eu", { label: "eu" }));
    await store.save(sampleSignIn("us", { label: "us" }));
    const tokens = tokensFrom(store, silentLogger);
    expect(await tokens("pager", ["read"])).toBe("eu-access");
    expect(await tokens("pager", ["read"], "us")).toBe("us-access");
    const missing = await tokens("pager", ["read"], "apac").catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(ToolError);
    expect((missing as ToolError).kind).toBe("unauthenticated");
    expect((missing as ToolError).message).toContain("“apac”");
    expect((missing as ToolError).message).toContain("toolkits-mcp login pager --label apac");
  });

  it("lets a chosen label, from --account or a connector URL, pass over the environment's token", async () => {
    await store.save(sampleSignIn("eu", { label: "eu" }));
    await store.save(sampleSignIn("us", { label: "us" }));
    const env = { XDG_CONFIG_HOME: configHome, PAGER_ACCESS_TOKEN: "from-environment" };
    const options = { logger: silentLogger, maxResultBytes: 100_000 };
    const unchosen = environmentHost(options, env, tokenFilePath(env));
    expect(await unchosen.tokens("pager", ["read"])).toBe("from-environment");
    const served = environmentHost(options, env, tokenFilePath(env), { pager: "us" });
    expect(await served.tokens("pager", ["read"])).toBe("us-access");
    expect(await withChosenAccounts(served, { pager: "eu" }).tokens("pager", ["read"])).toBe("eu-access");
    expect(await withChosenAccounts(unchosen, {}).tokens("pager", ["read"])).toBe("from-environment");
    const marketing = withChosenAccounts(unchosen, { marketing: "us" });
    await expect(async () => marketing.secrets("MARKETING_API_KEY")).rejects.toThrow("“us”");
  });
});

function sampleFileRecord(token: string) {
  return {
    access_token: token,
    scopes: [],
    token_type: "bearer",
    obtained_at: 1,
    server: { issuer: "https://i.example", token_endpoint: "https://i.example/token" },
    client: { id: "c" },
  };
}
