import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { silentLogger, ToolError } from "@toolkits/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type GrantOf, type GrantRecord, grantOf } from "../../src/credentials/grant.js";
import type { OAuthClients } from "../../src/credentials/providers.js";
import { type Connections, storedConnections } from "../../src/team/connections.js";
import { teamCredentials } from "../../src/team/credentials.js";
import { hashKey, openStore, type TeamStore } from "../../src/team/store/index.js";
import { type MockAuthServer, startMockAuthServer } from "./mock-oauth.js";

const PAGER_SECRET = `pager-secret-${randomBytes(8).toString("hex")}`;
const DRIVE_FILE = "https://www.googleapis.com/auth/drive.file";
const USERINFO_EMAIL = "https://www.googleapis.com/auth/userinfo.email";

let directory: string;
let store: TeamStore;
let auth: MockAuthServer;
let connections: Connections;
let person: string;

const key = (provider: string) => `tk:conn:${hashKey(person)}:${provider}`;

/** A connection as the team store has always held it, its access token expiring `inMs` from now. */
const record = (inMs: number, overrides: Partial<GrantRecord> = {}): GrantRecord => ({
  provider: "pager",
  connectedAt: Date.now() - 86_400_000,
  account: "alice@example.com",
  accessToken: "stored-access",
  refreshToken: "stored-refresh",
  expiresAt: Date.now() + inMs,
  scopes: ["read"],
  tokenType: "bearer",
  server: {
    issuer: auth.url,
    token_endpoint: `${auth.url}/token`,
    revocation_endpoint: `${auth.url}/revoke`,
  },
  clientId: "pager-client",
  ...overrides,
});

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("expected a failure");
    },
    (error: unknown) => error as ToolError,
  );

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "team-credentials-"));
  store = await openStore(
    { url: pathToFileURL(join(directory, "store.json")).href, key: randomBytes(32).toString("base64") },
    silentLogger,
  );
  auth = await startMockAuthServer();
  const clients: OAuthClients = {
    pager: { clientId: "pager-client", clientSecret: PAGER_SECRET, issuer: auth.url },
    google: { clientId: "google-client", issuer: auth.url },
  };
  connections = storedConnections(store, "https://mcp.test", clients);
});

afterAll(async () => {
  await Promise.all([auth?.stop(), store?.close()]);
  await rm(directory, { recursive: true, force: true });
});

beforeEach(() => {
  person = `https://id.test#${randomBytes(6).toString("hex")}`;
});

describe("a person's credentials in the team store", () => {
  it("answers an account not connected yet with unauthenticated and a connect link", async () => {
    const credentials = teamCredentials(connections, silentLogger)(person);
    const error = await failure(credentials.accessToken("pager", []));
    expect(error).toBeInstanceOf(ToolError);
    expect(error.kind).toBe("unauthenticated");
    expect(error.connect?.url).toMatch(/^https:\/\/mcp\.test\/connect\/pager\?code=[\w-]+$/);
    expect(error.message).toContain("Your PagerDuty account is not connected yet");
    expect(error.message).toContain(error.connect?.url);
    const key = await failure(credentials.marketingKey());
    expect(key.kind).toBe("unauthenticated");
    expect(key.connect?.url).toMatch(/\/connect\/marketing\?code=/);
  });

  it("opens a stored connection and refreshes it with the configured client's secret, keeping its record shape", async () => {
    await store.set(key("pager"), record(-1_000));
    const before = auth.tokenRequests.length;
    const { token } = await teamCredentials(connections, silentLogger)(person).accessToken("pager", []);
    expect(auth.issued).toContain(token);
    expect(auth.tokenRequests.slice(before)).toEqual([
      expect.objectContaining({
        grant_type: "refresh_token",
        refresh_token: "stored-refresh",
        client_id: "pager-client",
        client_secret: PAGER_SECRET,
      }),
    ]);
    const renewed = await store.get<GrantRecord>(key("pager"));
    expect(renewed).toMatchObject({
      accessToken: token,
      account: "alice@example.com",
      clientId: "pager-client",
    });
    // A record from before labels is written back with the label its account gives it.
    expect(renewed?.label).toBe("alice");
    expect(Object.keys(renewed ?? {}).sort()).toEqual([...Object.keys(record(0)), "label"].sort());
  });

  it("never sends the configured secret with another client's tokens", async () => {
    await store.set(key("pager"), record(-1_000, { clientId: "an-older-client" }));
    const before = auth.tokenRequests.length;
    await teamCredentials(connections, silentLogger)(person).accessToken("pager", []);
    expect(auth.tokenRequests.slice(before)).toEqual([
      expect.objectContaining({ client_id: "an-older-client", refresh_token: "stored-refresh" }),
    ]);
    expect(auth.tokenRequests.at(-1)?.client_secret).toBeUndefined();
  });

  it("refreshes once when two replicas need the same connection refreshed", async () => {
    await store.set(key("pager"), record(30_000));
    const replicas = [teamCredentials(connections, silentLogger), teamCredentials(connections, silentLogger)];
    const before = auth.tokenRequests.length;
    const tokens = await Promise.all(
      Array.from({ length: 6 }, (_, index) => replicas[index % 2]?.(person).accessToken("pager", [])),
    );
    expect(auth.tokenRequests.length - before).toBe(1);
    expect(new Set(tokens.map((answer) => answer?.token)).size).toBe(1);
  });

  it("never keeps a connection removed while its refresh was under way, and gives back the renewed tokens to revoke", async () => {
    // Disconnected (or offboarded) while the provider has the refresh request in hand.
    const { token, outcome: removed } = await duringRefresh(() => connections.of(person).remove("pager"));
    expect(auth.issued).toContain(token);
    expect(removed?.accessToken.reveal()).toBe(token);
    expect(await store.get(key("pager"))).toBeUndefined();
    expect(await connections.of(person).list("pager")).toEqual([]);
  });

  it("renames a connection whose refresh is under way once the renewed tokens are saved, keeping it the default", async () => {
    const { token, outcome } = await duringRefresh(() =>
      connections.of(person).rename("pager", "alice", "eu"),
    );
    expect(outcome).toBe(true);
    const [only, ...rest] = await connections.of(person).list("pager");
    expect(rest).toEqual([]);
    expect(only?.label).toBe("eu");
    expect(only?.accessToken.reveal()).toBe(token);
    expect((await connections.of(person).get("pager"))?.label).toBe("eu");
  });

  it("keeps every account a person connects at once at one provider, each under its own label", async () => {
    const grants = connections.of(person);
    const accounts = ["ann@example.com", "ann@example.org", "bob@example.com", "acme"];
    const labels = await Promise.all(
      accounts.map((account, index) =>
        grants.save(
          grantOf({ ...record(3_600_000, { account }), accessToken: `access-${index}` }) as GrantOf<"pager">,
        ),
      ),
    );
    const kept = await grants.list("pager");
    expect(new Set(labels).size).toBe(4);
    expect(kept.map((grant) => grant.accessToken.reveal()).sort()).toEqual([
      "access-0",
      "access-1",
      "access-2",
      "access-3",
    ]);
    expect(kept.map((grant) => grant.label).sort()).toEqual([...labels].sort());
  });

  it("answers a connection short of a scope with forbidden and a connect link", async () => {
    await store.set(key("google"), record(3_600_000, { provider: "google", scopes: [DRIVE_FILE] }));
    const credentials = teamCredentials(connections, silentLogger)(person);
    expect(await credentials.accessToken("google", [DRIVE_FILE])).toMatchObject({ token: "stored-access" });
    const error = await failure(credentials.accessToken("google", [DRIVE_FILE, USERINFO_EMAIL]));
    expect(error.kind).toBe("forbidden");
    expect(error.retryable).toBe(false);
    expect(error.message).toContain("Your Google account does not grant every permission this tool needs");
    expect(error.connect?.url).toMatch(/\/connect\/google\?code=/);
    expect(await store.get(key("google"))).toBeDefined();
  });

  it("forgets a connection whose refresh the provider refuses, and answers with a connect link", async () => {
    await store.set(key("pager"), record(-1_000));
    auth.server.service.once("beforeResponse", (response) => {
      response.statusCode = 400;
      response.body = { error: "invalid_grant" };
    });
    const error = await failure(teamCredentials(connections, silentLogger)(person).accessToken("pager", []));
    expect(error.kind).toBe("unauthenticated");
    expect(error.message).toContain(
      "Your PagerDuty account “alice” was refused by the provider when refreshed",
    );
    expect(error.connect?.url).toMatch(/\/connect\/pager\?code=/);
    expect(await store.get(key("pager"))).toBeUndefined();
  });

  it("gives the marketing key with its region", async () => {
    await store.set(key("marketing"), {
      provider: "marketing",
      connectedAt: Date.now(),
      apiKey: "app-key",
      region: "eu",
    });
    expect(await teamCredentials(connections, silentLogger)(person).marketingKey()).toEqual({
      key: "app-key",
      region: "eu",
      label: "default",
    });
  });
});

/**
 * Makes `change` while a call refreshes the person's stale PagerDuty connection and the provider
 * holds the refresh request; then lets the provider answer. Resolves with the call's token and
 * what `change` gave.
 */
async function duringRefresh<T>(change: () => Promise<T>): Promise<{ token: string; outcome: T }> {
  const provider = await heldTokenEndpoint(auth.url);
  try {
    await store.set(
      key("pager"),
      record(-1_000, { server: { issuer: auth.url, token_endpoint: provider.url } }),
    );
    const call = teamCredentials(connections, silentLogger)(person).accessToken("pager", []);
    await provider.reached;
    const changing = change();
    // Long enough for a change that does not wait for the refresh to be made before it ends.
    await Promise.race([changing, sleep(300)]);
    provider.answer();
    const [{ token }, outcome] = await Promise.all([call, changing]);
    return { token, outcome };
  } finally {
    await provider.close();
  }
}

/**
 * A token endpoint in front of `issuer`'s that holds the first request until `answer()`, then
 * passes it on: a provider slow to answer a refresh. `reached` resolves once it holds one.
 */
async function heldTokenEndpoint(issuer: string) {
  let reached!: () => void;
  let answer!: () => void;
  const held = new Promise<void>((resolve) => {
    answer = resolve;
  });
  const reachedPromise = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    reached();
    await held;
    const passed = await fetch(`${issuer}/token`, {
      method: "POST",
      headers: request.headers as Record<string, string>,
      body: Buffer.concat(chunks),
    });
    response.writeHead(passed.status, { "content-type": passed.headers.get("content-type") ?? "" });
    response.end(Buffer.from(await passed.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`,
    reached: reachedPromise,
    answer,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
