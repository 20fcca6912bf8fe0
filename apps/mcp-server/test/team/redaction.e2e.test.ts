// Redaction in the team deployment (one process on the file store, logging at debug): Mallory,
// signed in, pastes strings into the App API key form. The App API refuses each, and none of them
// changes what anyone sees: her audit lines still name her, Bob's connect link still works, every
// log line is still JSON. Then she connects her real key, and no secret, code or verifier of
// anyone's appears in the log.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectHttp, type TestClient } from "../clients.js";
import { type Browser, browser, type Page } from "./browser.js";
import { type Deployment, pseudonym, startDeployment } from "./deployment.js";

let d: Deployment;
const clients = new Map<string, TestClient>();
/** The front-door access tokens used, and the connect codes handed out: never to be logged. */
const handedOut: string[] = [];

/** `person`'s MCP client (2026-07-28), with a front-door token the team's identity provider issued. */
async function clientOf(person: string): Promise<TestClient> {
  const known = clients.get(person);
  if (known) return known;
  const token = await d.idp.server.issuer.buildToken({
    scopesOrTransform: (_header, payload) => Object.assign(payload, { sub: person, aud: d.audience }),
  });
  handedOut.push(token);
  const client = await connectHttp("v2", `${d.url}/mcp`, { authorization: `Bearer ${token}` });
  clients.set(person, client);
  return client;
}

/** `person` calls `tool` and is asked to connect `provider`: the connect link in the answer, if whole. */
async function connectLink(person: string, tool: string, provider: string): Promise<string> {
  const answer = await (await clientOf(person)).call(tool);
  expect(answer.isError, answer.text).toBe(true);
  const link = new RegExp(`${d.url}/connect/${provider}\\?code=([\\w-]+)`).exec(answer.text);
  expect(link, answer.text).not.toBeNull();
  handedOut.push(link?.[1] ?? "");
  return link?.[0] ?? "";
}

const principal = (person: string) => `${d.idp.url}#${person}`;
const logLines = () => d.replicas.flatMap((replica) => replica.stderr().split("\n")).filter(Boolean);

let mallory: Browser;
let form: Page;

beforeAll(async () => {
  d = await startDeployment({ name: "one process on the embedded file store", replicas: 1, store: "file" });
  await d.restart(0, { MCP_LOG_LEVEL: "debug" });
  mallory = browser({ user: "mallory" });
  form = await mallory.open(await connectLink("mallory", "MarketingApi_ListWorkspaces", "marketing"));
  expect(form.status, form.text).toBe(200);
  for (const pasted of [principal("mallory"), "/connect/", '{"level":30,"time":']) {
    form = await mallory.submit(form, { api_key: pasted, region: "us" });
    expect(form.status, form.text).toBe(400);
    expect(form.text).toContain("Customer.io refused the key");
  }
}, 60_000);

afterAll(async () => {
  await Promise.all([...clients.values()].map((client) => client.close()));
  await d?.stop();
});

describe("strings pasted into the App API key form and refused", () => {
  it("leave the audit lines of the person who pasted them naming that person", async () => {
    await (await clientOf("mallory")).call("Pager_WhoAmI");
    const audit = logLines().filter((line) => line.includes('"msg":"tool call"'));
    expect(audit.length).toBeGreaterThan(1);
    for (const line of audit) expect(line).toContain(`"principal":"${pseudonym(principal("mallory"))}"`);
  });

  it("leave other people's connect links whole and working", async () => {
    const link = await connectLink("bob", "Pager_WhoAmI", "pager");
    const page = await browser({ user: "bob" }).open(link);
    expect(page.status, page.text).toBe(200);
    expect(page.text).toContain("Connected PagerDuty as bob@example.com");
    expect((await (await clientOf("bob")).call("Pager_WhoAmI")).isError).toBe(false);
  });

  it("leave every log line valid JSON", () => {
    const lines = logLines();
    expect(lines.filter((line) => line.includes('"level":30'))).not.toEqual([]);
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
  });
});

describe("the log at debug level", () => {
  it("holds no secret, code or verifier, a verified key used in calls included", async () => {
    const key = d.upstreams.marketingKey("mallory");
    const connected = await mallory.submit(form, { api_key: key, region: "us" });
    expect(connected.text).toContain("Connected Customer.io App API (US region)");
    expect((await (await clientOf("mallory")).call("MarketingApi_ListWorkspaces")).isError).toBe(false);
    const servers = [d.idp, d.pagerAuth, d.googleAuth];
    const secrets = [
      key,
      ...handedOut,
      ...servers.flatMap((server) => [...server.issued, ...server.codes]),
      ...servers.flatMap((server) => server.tokenRequests.map((body) => body.code_verifier ?? "")),
      ...servers.flatMap((server) => server.authorizations.map((query) => query.state ?? "")),
      ...["MCP_STORE_KEY", "MCP_CONNECT_CLIENT_SECRET", "PAGER_OAUTH_CLIENT_SECRET"].map(
        (name) => d.env[name],
      ),
    ].filter((secret): secret is string => Boolean(secret));
    expect(secrets.length).toBeGreaterThan(10);
    const log = logLines().join("\n");
    for (const secret of secrets) expect(log).not.toContain(secret);
  });
});
