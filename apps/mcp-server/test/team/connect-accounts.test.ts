import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { silentLogger, ToolError } from "@toolkits/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OAuthClients, PROVIDERS } from "../../src/credentials/providers.js";
import { connectSite } from "../../src/team/connect/index.js";
import { type Connections, endPendingCodes, storedConnections } from "../../src/team/connections.js";
import { teamCredentials } from "../../src/team/credentials.js";
import { openStore, type TeamStore } from "../../src/team/store/index.js";
import { browser } from "./browser.js";
import { type MockAuthServer, startMockAuthServer } from "./mock-oauth.js";
import { type Served, serveFetch } from "./serve.js";

// A connector URL naming an account the person has not connected (`/mcp/pager@eu`) answers with a
// connect link for that label; completing it saves the account under exactly that label, so the
// same call then works, and the person's other accounts stay as they were.

const STORE_KEY = randomBytes(32).toString("base64");
const MARKETING_URL = "https://marketing.test";
const KEY = `app-key-${randomBytes(8).toString("hex")}`;

let directory: string;
let store: TeamStore;
let idp: MockAuthServer;
let pagerAuth: MockAuthServer;
let site: Served;
let connections: Connections;

/** The App API's workspace list, for the key check: KEY sees one workspace, "Main". */
const marketingApi: typeof fetch = async (_input, init) => {
  const key = new Headers(init?.headers).get("authorization")?.replace(/^Bearer /, "");
  if (key !== KEY) return Response.json({}, { status: 401 });
  return Response.json({ workspaces: [{ id: 1, name: "Main" }] });
};

const principal = (user: string) => `${idp.url}#${user}`;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "connect-accounts-"));
  store = await openStore(
    { url: pathToFileURL(join(directory, "store.json")).href, key: STORE_KEY },
    silentLogger,
  );
  [idp, pagerAuth] = await Promise.all([startMockAuthServer(), startMockAuthServer()]);
  const oauthClients: OAuthClients = {
    pager: { clientId: "pager-client", clientSecret: "pager-secret", issuer: pagerAuth.url },
    google: {},
  };
  site = await serveFetch((url) => {
    connections = storedConnections(store, url, oauthClients);
    return connectSite({
      connections,
      store,
      storeKeys: { key: STORE_KEY },
      publicUrl: url,
      issuer: idp.url,
      connectClient: { id: "connect-client", secret: "connect-secret" },
      oauthClients,
      settings: (name) => (name === "MARKETING_API_URL" ? MARKETING_URL : undefined),
      logger: silentLogger,
      fetch: marketingApi,
      scopes: (provider) => PROVIDERS[provider].scopes([]),
    }).pages();
  });
});

afterAll(async () => {
  await Promise.all([site, idp, pagerAuth].map((server) => server?.stop()));
  await store?.close();
  await rm(directory, { recursive: true, force: true });
});

/** The ToolError `call` rejects with. */
async function refusal(call: Promise<unknown>): Promise<ToolError> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ToolError);
  return error as ToolError;
}

describe("a connect link for a chosen account", () => {
  it("names the label, saves the account under it, and leaves the default untouched", async () => {
    const alice = browser({ user: "alice" });
    const person = principal("alice");
    expect((await alice.open((await connections.link(person, "pager")).url)).status).toBe(200);
    const before = await connections.of(person).get("pager");
    const credentials = teamCredentials(connections, silentLogger)(person);

    // The call at /mcp/pager@eu acts as "eu", which Alice has not connected.
    const error = await refusal(credentials.accessToken("pager", ["read"], "eu"));
    expect(error.kind).toBe("unauthenticated");
    expect(error.message).toContain("Your PagerDuty account “eu” is not connected yet");
    expect(error.connect?.message).toContain("Connect your PagerDuty account “eu” to continue");
    const url = error.connect?.url ?? "";
    expect(error.message).toContain(url);

    const page = await alice.open(url);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Connected PagerDuty as alice@example.com, labelled “eu”.");
    const eu = await connections.of(person).get("pager", "eu");
    expect(eu?.label).toBe("eu");
    expect(await credentials.accessToken("pager", ["read"], "eu")).toEqual({
      token: eu?.accessToken.reveal(),
      label: "eu",
    });
    const after = await connections.of(person).get("pager");
    expect(after?.label).toBe(before?.label);
    expect(after?.accessToken.reveal()).toBe(before?.accessToken.reveal());
    expect((await connections.of(person).list("pager")).map((grant) => grant.label)).toEqual(["alice", "eu"]);
  });

  it("gives one live code per provider and label, and offboarding ends the labelled ones too", async () => {
    const person = principal("bea");
    const [eu, again, plain, other] = await Promise.all([
      connections.link(person, "pager", "eu"),
      connections.link(person, "pager", "eu"),
      connections.link(person, "pager"),
      connections.link(person, "pager", "us"),
    ]);
    expect(again.url).toBe(eu.url);
    expect(new Set([eu.url, plain.url, other.url]).size).toBe(3);
    const code = (link: { url: string }) => new URL(link.url).searchParams.get("code") ?? "";
    expect(await connections.peek(code(eu))).toEqual({ principal: person, provider: "pager", label: "eu" });
    expect(await connections.peek(code(plain))).toEqual({ principal: person, provider: "pager" });

    expect(await endPendingCodes(store, person)).toBe(3);
    for (const link of [eu, plain, other]) expect(await connections.peek(code(link))).toBeUndefined();
  });

  it("carries the label through the App API key form, and names a key by its workspace otherwise", async () => {
    const cleo = browser({ user: "cleo" });
    const person = principal("cleo");
    const form = await cleo.open((await connections.link(person, "marketing")).url);
    const first = await cleo.submit(form, { api_key: KEY, region: "eu" });
    expect(first.text).toContain(
      "Connected Customer.io App API (EU region), workspace Main, labelled “main-eu”.",
    );

    const labelled = await cleo.open((await connections.link(person, "marketing", "second")).url);
    expect(labelled.form().fields.label).toBe("second");
    const done = await cleo.submit(labelled, { api_key: KEY, region: "us" });
    expect(done.text).toContain("labelled “second”");
    const labels = (await connections.of(person).list("marketing")).map((grant) => grant.label);
    expect(labels).toEqual(["main-eu", "second"]);

    const forged = await cleo.open((await connections.link(person, "marketing", "third")).url);
    const refused = await cleo.submit(forged, { api_key: KEY, label: "Not A Label" });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain("The account label “Not A Label” is not one");
  });
});

describe("the connections page with several accounts at a provider", () => {
  it("connects another account, renames one (refusing what is not a label or already used) and makes it the default", async () => {
    const ivy = browser({ user: "ivy" });
    const person = principal("ivy");
    expect((await ivy.open((await connections.link(person, "pager")).url)).status).toBe(200);
    const list = await ivy.open(`${site.url}/connect`);
    const another = list.links.find((link) => link.includes("/connect/pager?code="));
    expect(list.text).toContain("Connect another PagerDuty account");
    const connected = await ivy.open(another ?? "");
    // PagerDuty names no account apart, so the other account gets a label of its own.
    expect(connected.text).toContain("labelled “pager-2”");

    const both = await ivy.open(`${site.url}/connect`);
    expect(both.text).toContain("labelled “ivy”, the default");
    expect(both.text).toContain("labelled “pager-2”, connected");
    const renameForm = (page: typeof both, label: string) =>
      page.forms.find((form) => form.action.endsWith("/pager/rename") && form.fields.label === label);
    const form = renameForm(both, "pager-2");
    const post = (fields: Record<string, string>) =>
      ivy.post(form?.action ?? "", { ...form?.fields, ...fields });

    const bad = await post({ new_label: "EU West!" });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("New label: “eu west!” is not allowed; use lowercase letters, digits");
    const taken = await post({ new_label: "ivy" });
    expect(taken.status).toBe(400);
    expect(taken.text).toContain("New label: you already use “ivy” for another PagerDuty account.");
    const renamed = await post({ new_label: "eu" });
    expect(renamed.status).toBe(200);
    expect(renamed.text).toContain("Renamed your PagerDuty account “pager-2” to “eu”.");
    expect((await connections.of(person).list("pager")).map((grant) => grant.label)).toEqual(["ivy", "eu"]);

    const makeDefault = renamed.forms.find(
      (each) => each.action.endsWith("/pager/default") && each.fields.label === "eu",
    );
    const defaulted = await ivy.post(makeDefault?.action ?? "", makeDefault?.fields ?? {});
    expect(defaulted.text).toContain("Your PagerDuty account “eu” is now the default.");
    expect(defaulted.text).toContain("labelled “eu”, the default");
    expect((await connections.of(person).list("pager")).map((grant) => grant.label)).toEqual(["eu", "ivy"]);

    // Renaming the default keeps it the default.
    const again = renameForm(defaulted, "eu");
    await ivy.post(again?.action ?? "", { ...again?.fields, new_label: "europe" });
    expect((await connections.of(person).list("pager")).map((grant) => grant.label)).toEqual([
      "europe",
      "ivy",
    ]);
  });

  it("needs the CSRF token to rename or make default", async () => {
    const jo = browser({ user: "jo" });
    expect((await jo.open((await connections.link(principal("jo"), "pager")).url)).status).toBe(200);
    for (const action of ["rename", "default"]) {
      const refused = await jo.post(`${site.url}/connect/pager/${action}`, { label: "jo", new_label: "x" });
      expect(refused.status).toBe(400);
    }
    expect((await connections.of(principal("jo")).list("pager")).map((grant) => grant.label)).toEqual(["jo"]);
  });
});
