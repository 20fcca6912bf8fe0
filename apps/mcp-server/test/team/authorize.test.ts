// The built-in authorization server's own rules, in process: which scopes each tool needs and what a
// token's scopes let it see, the one scope challenge, how approvals are keyed, which clients count as
// native apps, the store adapter's single use of codes, registered clients' expiry, the keys.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { AuthInfo } from "@modelcontextprotocol/server";
import { envHost } from "@toolkits/core";
import { createToolRegistry, readInbound } from "@toolkits/core/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scopeRefusal } from "../../src/http/scope-challenge.js";
import {
  CLIENTS_INDEX,
  grantAlive,
  grantClaim,
  storeAdapter,
  UNUSED_CLIENT_TTL_MS,
} from "../../src/team/authorize/adapter.js";
import { clientPolicy } from "../../src/team/authorize/clients.js";
import {
  approvalRedirect,
  approved,
  authorisedClients,
  remember,
  revokeClient,
} from "../../src/team/authorize/consent.js";
import { indexEarlierRecords } from "../../src/team/authorize/indexes.js";
import { KEY_LIFETIME_MS, serverKeys, verificationKeys } from "../../src/team/authorize/keys.js";
import { registrationGate } from "../../src/team/authorize/registration.js";
import { scopeRules } from "../../src/team/authorize/scopes.js";
import { hashKey, openStore, type TeamStore } from "../../src/team/store/index.js";
import { TOOLKITS } from "../../src/toolkits.js";
import { registries, scopesView, WHOLE, within } from "../../src/views.js";
import { INSTALL_TIMEOUT_MS, type RedisServer, startRedis } from "./redis.js";
import { recordingLogger } from "./store-helpers.js";

const TOOLS = Object.values(TOOLKITS).flatMap((kit) => kit.tools);
const rules = scopeRules(TOOLS);
const tool = (name: string) => {
  const found = TOOLS.find((each) => each.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
};

describe("scopes", () => {
  it("are one per toolkit and one for writes; a tool needs its toolkit's, and write unless it only reads", () => {
    expect(rules.supported).toEqual(["pager", "sheets", "marketing", "write"]);
    expect(rules.needs(tool("Pager.WhoAmI"))).toEqual(["pager"]);
    expect(rules.needs(tool("Sheets.CreateSpreadsheet"))).toEqual(["sheets", "write"]);
    expect(rules.needsOf("Sheets.GetSpreadsheet")).toEqual(["sheets"]);
    expect(rules.needsOf("Nothing.Here")).toBeUndefined();
  });

  it("offer write only when a write tool is served", () => {
    expect(scopeRules(TOOLS.filter((each) => each.hints.readOnly)).supported).toEqual([
      "pager",
      "sheets",
      "marketing",
    ]);
    expect(scopeRules(TOOLKITS.pager?.tools ?? []).supported).toEqual(["pager"]);
  });

  it("narrow a token's view to the tools they cover; the same scopes in any order are one view", () => {
    const pagerOnly = scopesView(["pager"], rules.needs);
    const admitted = TOOLS.filter(pagerOnly.admits).map((each) => each.name);
    expect(admitted.length).toBeGreaterThan(5);
    expect(admitted.every((name) => name.startsWith("Pager."))).toBe(true);
    expect(scopesView(["sheets", "pager"], rules.needs).id).toBe(
      scopesView(["pager", "sheets"], rules.needs).id,
    );
    const reading = scopesView(["sheets"], rules.needs);
    expect(reading.admits(tool("Sheets.GetSpreadsheet"))).toBe(true);
    expect(reading.admits(tool("Sheets.CreateSpreadsheet"))).toBe(false);
  });

  it("only ever narrow another view: within() admits what both admit", () => {
    const sheetsOnly = {
      id: "url:sheets",
      admits: (each: (typeof TOOLS)[number]) => each.name.startsWith("Sheets."),
    };
    const both = within(sheetsOnly, scopesView(["pager", "sheets"], rules.needs));
    const admitted = TOOLS.filter(both.admits).map((each) => each.name);
    expect(admitted).toContain("Sheets.GetSpreadsheet");
    expect(admitted).not.toContain("Pager.WhoAmI");
    expect(admitted).not.toContain("Sheets.CreateSpreadsheet");
  });
});

describe("the scope challenge", () => {
  const registryOf = registries(TOOLS, (admitted) =>
    createToolRegistry(admitted, envHost({}), { names: "underscore" }),
  );
  const whole = registryOf(WHOLE);
  const challenge = scopeRefusal(
    whole,
    rules.needsOf,
    (path) => `https://mcp.example.com/.well-known/oauth-protected-resource${path}`,
  );
  /** The challenge of a body as the endpoint reads it (names made canonical by the served registry's). */
  const refuse = (body: unknown, who: Parameters<typeof challenge>[1], path: string) =>
    challenge(readInbound(body, whole.names), who, path);
  const token = (scopes: string[], scoped = true): AuthInfo => ({
    token: "t",
    clientId: "c",
    scopes,
    extra: scoped ? { scoped: true } : {},
  });
  const call = (name: string, id = 1) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: {} },
  });

  it("answers a call beyond the token's scopes 403 insufficient_scope, naming its scopes and the missing ones", () => {
    const refusal = refuse(
      call("Sheets_CreateSpreadsheet"),
      { caller: { key: "" }, authInfo: token(["sheets"]) },
      "/mcp",
    );
    expect(refusal?.status).toBe(403);
    const header = refusal?.headers.get("www-authenticate") ?? "";
    expect(header).toContain('error="insufficient_scope"');
    expect(header).toContain('scope="sheets write"');
    expect(header).toContain(
      'resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"',
    );
  });

  it("finds the call in a batch, by either name form", () => {
    const batch = [{ jsonrpc: "2.0", id: 1, method: "tools/list" }, call("Pager.WhoAmI", 2)];
    const refusal = refuse(batch, { caller: { key: "" }, authInfo: token(["sheets"]) }, "/mcp");
    expect(refusal?.headers.get("www-authenticate")).toContain('scope="sheets pager"');
  });

  it("lets through calls the scopes cover, calls of tools not served, other methods, and tokens that do not narrow", () => {
    const pass = (body: unknown, authInfo: AuthInfo) =>
      refuse(body, { caller: { key: "" }, authInfo }, "/mcp");
    expect(pass(call("Pager_WhoAmI"), token(["pager"]))).toBeUndefined();
    expect(pass(call("Pager_NoSuchTool"), token(["pager"]))).toBeUndefined();
    expect(pass({ jsonrpc: "2.0", id: 1, method: "tools/list" }, token([]))).toBeUndefined();
    expect(pass(call("Sheets_CreateSpreadsheet"), token([], false))).toBeUndefined();
  });
});

describe("approvals", () => {
  it("are keyed by a loopback redirect without its port, which a native app picks anew each run", () => {
    expect(approvalRedirect("http://127.0.0.1:33418/")).toBe("http://127.0.0.1/");
    expect(approvalRedirect("http://localhost:54545/callback")).toBe("http://localhost/callback");
    expect(approvalRedirect("https://claude.ai/api/mcp/auth_callback")).toBe(
      "https://claude.ai/api/mcp/auth_callback",
    );
    expect(approvalRedirect("http://example.com:8080/cb")).toBe("http://example.com:8080/cb");
  });
});

describe("client metadata", () => {
  const { validator } = clientPolicy(
    [],
    (message) => new Error(`invalid_redirect_uri: ${message}`),
  ).extraClientMetadata;
  const checked = (metadata: Record<string, unknown>) => {
    const copy: Record<string, unknown> = { client_id: "c", ...metadata };
    validator?.(undefined as never, "toolkits_native_check", undefined, copy as never);
    return copy;
  };

  it("makes a client with a loopback http redirect or one in a scheme of its own a native app", () => {
    expect(checked({ redirect_uris: ["http://localhost/callback"] }).application_type).toBe("native");
    expect(checked({ redirect_uris: ["https://x.example/cb", "cursor://app/cb"] }).application_type).toBe(
      "native",
    );
    expect(
      checked({ redirect_uris: ["https://claude.ai/api/mcp/auth_callback"] }).application_type,
    ).toBeUndefined();
  });

  it.each(["http://attacker.example/cb", "https://x.example/*"])("refuses a redirect URI %s", (uri) => {
    expect(() => checked({ redirect_uris: ["https://x.example/cb", uri] })).toThrow("invalid_redirect_uri");
  });

  it("drops the scope a client registers: the consent page decides what a token holds", () => {
    expect(checked({ redirect_uris: ["https://x.example/cb"], scope: "pager sheets" }).scope).toBeUndefined();
  });
});

/** A store whose whole-store walk fails the test: lookups must go by index. */
const noWalks = (store: TeamStore): TeamStore => ({
  ...store,
  keys: (prefix) => Promise.reject(new Error(`walked the store for ${prefix}`)),
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(["file", "redis"] as const)("the store adapter and the keys on the %s store", (kind) => {
  let directory: string;
  let redis: RedisServer | undefined;
  let store: TeamStore;
  const invalidGrant = (message: string) => new Error(`invalid_grant: ${message}`);
  const adapter = (refreshGraceMs = 30_000) => storeAdapter(noWalks(store), { invalidGrant, refreshGraceMs });

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), "authorize-test-"));
    redis = kind === "redis" ? await startRedis() : undefined;
    const url = redis?.url ?? pathToFileURL(join(directory, "store.json")).href;
    store = await openStore(
      { url, key: Buffer.from(Array.from({ length: 32 }, (_, i) => i * 7)).toString("base64") },
      recordingLogger(),
    );
  }, INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    await store?.close();
    await redis?.stop();
    await rm(directory, { recursive: true, force: true });
  });

  it("lets one of two concurrent uses of a code consume it; the other is refused as invalid_grant", async () => {
    const codes = new (adapter())("AuthorizationCode");
    await codes.upsert("code-1", { grantId: "grant-1" }, 60);
    const outcomes = await Promise.allSettled([codes.consume("code-1"), codes.consume("code-1")]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(["fulfilled", "rejected"]);
    expect((await codes.find("code-1"))?.consumed).toBeTypeOf("number");
  });

  it("lets every one of seven concurrent refreshes with one refresh token rotate it, within the grace", async () => {
    const tokens = new (adapter(1_000))("RefreshToken");
    await tokens.upsert("rt-concurrent", { grantId: "grant-c" }, 600);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 7 }, () => tokens.consume("rt-concurrent")),
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual(Array(7).fill("fulfilled"));
    // Presented again within the grace, it reads as unused (the library issues a sibling)…
    expect((await tokens.find("rt-concurrent"))?.consumed).toBeUndefined();
    await sleep(1_500);
    // …and after it, as used: the library's reuse detection revokes the grant.
    expect((await tokens.find("rt-concurrent"))?.consumed).toBeTypeOf("number");
  });

  it("without a grace, refuses the second of two concurrent rotations of a refresh token", async () => {
    const tokens = new (adapter(0))("RefreshToken");
    await tokens.upsert("rt-strict", { grantId: "grant-s" }, 600);
    const outcomes = await Promise.allSettled([tokens.consume("rt-strict"), tokens.consume("rt-strict")]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(["fulfilled", "rejected"]);
  });

  it("revokes a grant by its one record, without walking the store: its tokens' grant is no longer alive", async () => {
    const Adapter = adapter();
    const grants = new Adapter("Grant");
    await grants.upsert("grant-2", { accountId: "alice" }, 600);
    await grants.upsert("grant-3", { accountId: "bob" }, 600);
    await grants.revokeByGrantId("grant-2");
    expect(await grantAlive(store, grantClaim("grant-2"))).toBe(false);
    expect(await grantAlive(store, grantClaim("grant-3"))).toBe(true);
    expect(await grants.find("grant-2")).toBeUndefined();
  });

  it("keeps a registered client 90 days from its last use, in the index of registered clients", async () => {
    const clients = new (adapter())("Client");
    await clients.upsert("client-1", { client_id: "client-1" });
    const stored = await store.get<{ expiresAt: number }>(`tk:as:Client:${hashKey("client-1")}`);
    expect((stored?.expiresAt ?? 0) - Date.now()).toBeGreaterThan(UNUSED_CLIENT_TTL_MS - 60_000);
    expect(await store.index(CLIENTS_INDEX).members()).toContain(hashKey("client-1"));
    await clients.destroy("client-1");
    expect(await store.index(CLIENTS_INDEX).members()).not.toContain(hashKey("client-1"));
  });

  it("takes so many registrations per address an hour and so many clients in all, counted by index, warning from 80 %", async () => {
    const logger = recordingLogger();
    const before = await store.index(CLIENTS_INDEX).count();
    const admit = registrationGate(noWalks(store), logger, { perHour: 2, max: before + 5 });
    expect(await admit("192.0.2.1")).toBeUndefined();
    expect(await admit("192.0.2.1")).toBeUndefined();
    expect(await admit("192.0.2.1")).toMatchObject({ status: 429, body: { error: "invalid_request" } });
    expect(await admit("192.0.2.2")).toBeUndefined();
    expect(logger.lines.filter((line) => line.level === "warn")).toEqual([]);
    const clients = new (adapter())("Client");
    for (const id of ["a", "b", "c", "d"]) await clients.upsert(`capped-${id}`, { client_id: id });
    expect(await admit("192.0.2.3")).toBeUndefined();
    expect(logger.lines.find((line) => line.level === "warn")?.fields).toEqual({
      registered: before + 4,
      cap: before + 5,
    });
    await clients.upsert("capped-e", { client_id: "e" });
    expect(await admit("192.0.2.4")).toMatchObject({
      status: 503,
      body: { error: "temporarily_unavailable" },
    });
    const refusals = logger.lines.filter((line) => line.message === "oauth refused");
    expect(refusals.map((line) => [line.fields?.step, line.fields?.error])).toEqual([
      ["registration", "invalid_request"],
      ["registration", "temporarily_unavailable"],
    ]);
  });

  it("lists and revokes a person's authorised clients by their index, without walking the store; revoking ends the approvals", async () => {
    const indexed = noWalks(store);
    const approval = {
      principal: "token:henry",
      clientId: "https://client.example/metadata.json",
      redirectUri: "https://client.example/callback",
      resource: "https://mcp.example/mcp",
      scopes: ["pager"],
      metadata: "digest-1",
    };
    await remember(indexed, approval, { name: "Example client", grantId: "grant-h1" });
    await remember(
      indexed,
      { ...approval, clientId: "other-client" },
      { name: "Other", grantId: "grant-h2" },
    );
    expect((await authorisedClients(indexed, "token:henry")).map((client) => client.name).sort()).toEqual([
      "Example client",
      "Other",
    ]);
    expect(await approved(indexed, approval)).toBe(true);
    expect(await revokeClient(indexed, "token:henry", approval.clientId)).toBe(true);
    expect((await authorisedClients(indexed, "token:henry")).map((client) => client.name)).toEqual(["Other"]);
    expect(await approved(indexed, approval)).toBe(false);
    // Approved again at another redirect URI, the client's earlier approvals stay revoked.
    await sleep(5);
    const elsewhere = { ...approval, redirectUri: "https://client.example/elsewhere" };
    await remember(indexed, elsewhere, { name: "Example client", grantId: "grant-h3" });
    expect(await approved(indexed, elsewhere)).toBe(true);
    expect(await approved(indexed, approval)).toBe(false);
  });

  it("indexes records written before the indexes once, on the first start that has them", async () => {
    const person = hashKey("token:iris");
    await store.set(`tk:as:authorised:${person}:${hashKey("legacy-client")}`, {
      clientId: "legacy-client",
      name: "Legacy",
      scopes: ["pager"],
      grantIds: [],
      at: Date.now(),
    });
    await store.set(`tk:as:Client:${hashKey("legacy-registered")}`, { payload: {} }, 60_000);
    const logger = recordingLogger();
    await indexEarlierRecords(store, logger);
    expect((await authorisedClients(noWalks(store), "token:iris")).map((client) => client.name)).toEqual([
      "Legacy",
    ]);
    expect(await store.index(CLIENTS_INDEX).members()).toContain(hashKey("legacy-registered"));
    expect(logger.lines.map((line) => line.message)).toContain(
      "indexed the authorization server's earlier records",
    );
    // Once: a second start walks nothing.
    await indexEarlierRecords(noWalks(store), logger);
  });

  it("makes the keys once, and replaces them when old, the previous still verifying", async () => {
    const first = await serverKeys(store);
    expect(await serverKeys(store)).toEqual(first);
    const later = await serverKeys(store, first.madeAt + KEY_LIFETIME_MS + 1);
    expect(later.signing[0]?.kid).not.toBe(first.signing[0]?.kid);
    expect(later.signing[1]?.kid).toBe(first.signing[0]?.kid);
    expect(later.cookies[1]).toBe(first.cookies[0]);
    expect([...verificationKeys(later).keys()]).toEqual(later.signing.map((jwk) => jwk.kid));
  });
});
