// The built-in authorization server's own rules, in process: which scopes each tool needs and what a
// token's scopes let it see, the one scope challenge, how approvals are keyed, which clients count as
// native apps, the store adapter's single use of codes, registered clients' expiry, the keys.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { AuthInfo } from "@modelcontextprotocol/server";
import { envHost } from "@toolkits/core";
import { createToolRegistry } from "@toolkits/core/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scopeRefusal } from "../../src/http/scope-challenge.js";
import { storeAdapter, UNUSED_CLIENT_TTL_MS } from "../../src/team/authorize/adapter.js";
import { clientPolicy } from "../../src/team/authorize/clients.js";
import { approvalRedirect } from "../../src/team/authorize/consent.js";
import { KEY_LIFETIME_MS, serverKeys, verificationKeys } from "../../src/team/authorize/keys.js";
import { registrationGate } from "../../src/team/authorize/registration.js";
import { scopeRules } from "../../src/team/authorize/scopes.js";
import { hashKey, openStore, type TeamStore } from "../../src/team/store/index.js";
import { TOOLKITS } from "../../src/toolkits.js";
import { registries, scopesView, WHOLE, within } from "../../src/views.js";
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
  const refuse = scopeRefusal(
    registryOf(WHOLE),
    rules.needsOf,
    (path) => `https://mcp.example.com/.well-known/oauth-protected-resource${path}`,
  );
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

describe("the store adapter and the keys", () => {
  let directory: string;
  let store: TeamStore;
  const invalidGrant = (message: string) => new Error(`invalid_grant: ${message}`);

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), "authorize-test-"));
    const url = pathToFileURL(join(directory, "store.json")).href;
    store = await openStore(
      { url, key: Buffer.from(Array.from({ length: 32 }, (_, i) => i * 7)).toString("base64") },
      recordingLogger(),
    );
  });
  afterAll(async () => {
    await store?.close();
    await rm(directory, { recursive: true, force: true });
  });

  it("lets one of two concurrent uses of a code consume it; the other is refused as invalid_grant", async () => {
    const Adapter = storeAdapter(store, invalidGrant);
    const codes = new Adapter("AuthorizationCode");
    await codes.upsert("code-1", { grantId: "grant-1" }, 60);
    const outcomes = await Promise.allSettled([codes.consume("code-1"), codes.consume("code-1")]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(["fulfilled", "rejected"]);
    expect((await codes.find("code-1"))?.consumed).toBeTypeOf("number");
  });

  it("revokes everything of a grant", async () => {
    const Adapter = storeAdapter(store, invalidGrant);
    const tokens = new Adapter("RefreshToken");
    await tokens.upsert("rt-1", { grantId: "grant-2" }, 600);
    await tokens.upsert("rt-2", { grantId: "grant-3" }, 600);
    await tokens.revokeByGrantId("grant-2");
    expect(await tokens.find("rt-1")).toBeUndefined();
    expect(await tokens.find("rt-2")).toBeDefined();
  });

  it("keeps a registered client 90 days from its last use", async () => {
    const clients = new (storeAdapter(store, invalidGrant))("Client");
    await clients.upsert("client-1", { client_id: "client-1" });
    const stored = await store.get<{ expiresAt: number }>(`tk:as:Client:${hashKey("client-1")}`);
    expect((stored?.expiresAt ?? 0) - Date.now()).toBeGreaterThan(UNUSED_CLIENT_TTL_MS - 60_000);
  });

  it("takes so many registrations per address an hour, and so many clients in all", async () => {
    const admit = registrationGate(store, { perHour: 2, max: 3 });
    expect(await admit("192.0.2.1")).toBeUndefined();
    expect(await admit("192.0.2.1")).toBeUndefined();
    expect(await admit("192.0.2.1")).toMatchObject({ status: 429, body: { error: "invalid_request" } });
    expect(await admit("192.0.2.2")).toBeUndefined();
    const clients = new (storeAdapter(store, invalidGrant))("Client");
    for (const id of ["a", "b", "c"]) await clients.upsert(`capped-${id}`, { client_id: id });
    expect(await admit("192.0.2.3")).toMatchObject({
      status: 503,
      body: { error: "temporarily_unavailable" },
    });
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
