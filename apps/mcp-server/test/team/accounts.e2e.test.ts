// Several accounts per provider for one person, end to end: the built server in per-user mode on a
// real redis-server, Alice connecting two PagerDuty accounts (`a`, `b`) and two Google accounts
// (`work`, `home`) through the real connect flow (the mock providers sign in a different user for
// each, whose e-mail's local part becomes the label), and the fake upstreams answering each
// account's own data by its token. Connector URLs choose the account: `/mcp/pager@a`, `/mcp/pager@b`.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browser } from "./browser.js";
import { type CallAnswer, type CallOptions, callAs, connectLinkIn } from "./calls.js";
import { INSTALL_TIMEOUT_MS } from "./debian.js";
import { type Deployment, onlyReplica, pseudonym, RATE_LIMITS, startDeployment } from "./deployment.js";
import type { MockAuthServer } from "./mock-oauth.js";
import { personData } from "./upstreams.js";

const PERSON = "alice";
/** PagerDuty's budget here: 5 requests a minute per person and account (55 per 600 s, in windows of 60 s). */
const PAGER_BUDGET = "pager=55/600s";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("several accounts per provider for one person (per user, Redis)", () => {
  let d: Deployment;
  /** Alice's browser: signed in at the identity provider as Alice, at each provider as the account's user. */
  const alice = browser();
  /** The tokens the Google mock issued while each Google account was connected. */
  const googleIssued = new Map<string, string[]>();

  beforeAll(async () => {
    d = await startDeployment({
      name: "accounts",
      replicas: 1,
      store: "redis",
      env: { MCP_RATE_LIMITS: RATE_LIMITS.replace(/pager=[^,]+/, PAGER_BUDGET) },
    });
    d.idp.signInAs(PERSON);
  }, INSTALL_TIMEOUT_MS);
  afterAll(() => d?.stop());

  const call = (path: string, tool: string, options: CallOptions = {}) =>
    callAs(d, PERSON, tool, {}, { ...options, path });

  /** Follows the connect link `path`'s call answers with, signing in at `auth` as `user`. */
  async function connect(path: string, tool: string, provider: string, auth: MockAuthServer, user: string) {
    const link = connectLinkIn(d, await call(path, tool), provider);
    auth.signInAs(user);
    const issued = auth.issued.length;
    const page = await alice.open(link);
    expect(page.status, page.text).toBe(200);
    expect(page.text).toContain(`as ${user}@example.com`);
    return auth.issued.slice(issued);
  }

  const emailOf = (answer: CallAnswer) => {
    expect(answer.isError, answer.text).toBe(false);
    return JSON.stringify(answer.data).match(/"email(?:Address)?":"([^"]+)"/)?.[1];
  };

  it("connects two PagerDuty and two Google accounts through the connect flow, the first of each the default", async () => {
    await connect("/mcp/pager", "Pager_WhoAmI", "pager", d.pagerAuth, "a");
    await connect("/mcp/pager@b", "Pager_WhoAmI", "pager", d.pagerAuth, "b");
    // The work account's tokens expire in 61 s: within a minute of expiry, so stale in a second.
    d.googleAuth.tokenLifetime(61);
    try {
      googleIssued.set("work", await connect("/mcp/sheets", "Sheets_WhoAmI", "google", d.googleAuth, "work"));
    } finally {
      d.googleAuth.tokenLifetime(undefined);
    }
    googleIssued.set(
      "home",
      await connect("/mcp/sheets@home", "Sheets_WhoAmI", "google", d.googleAuth, "home"),
    );
  });

  it("answers /mcp/pager@a and /mcp/pager@b with each account's own data, and /mcp/pager with the default's", async () => {
    const [a, b, plain] = await Promise.all([
      call("/mcp/pager@a", "Pager_ListIncidents"),
      call("/mcp/pager@b", "Pager_ListIncidents"),
      call("/mcp/pager", "Pager_ListIncidents"),
    ]);
    const ids = (answer: CallAnswer) => {
      expect(answer.isError, answer.text).toBe(false);
      return ((answer.data?.incidents ?? []) as { id: string }[]).map((incident) => incident.id).sort();
    };
    expect(ids(a)).toEqual(personData("a").incidentIds);
    expect(ids(b)).toEqual(personData("b").incidentIds);
    expect(ids(plain)).toEqual(personData("a").incidentIds);

    const whoB = await call("/mcp/pager@b", "Pager_WhoAmI");
    expect(emailOf(whoB)).toBe("b@example.com");
    expect(whoB.result?._meta).toMatchObject({ "io.github.agent-toolkits/account": expect.anything() });
    expect(JSON.stringify(whoB.result?._meta)).toContain('"b"');

    expect(emailOf(await call("/mcp/sheets@home", "Sheets_WhoAmI"))).toBe("home@example.com");
    expect(emailOf(await call("/mcp/sheets@work", "Sheets_WhoAmI"))).toBe("work@example.com");
    expect(emailOf(await call("/mcp/sheets", "Sheets_WhoAmI"))).toBe("work@example.com");
    // Two accounts at one provider for one person: distinct people at each upstream.
    expect(new Set(d.upstreams.of("pagerduty").map((request) => request.person))).toEqual(
      new Set(["a", "b"]),
    );
  });

  it("answers a label nobody connected with a connect link, never with another account's data", async () => {
    const before = d.upstreams.of("pagerduty").length;
    const nope = await call("/mcp/pager@nope", "Pager_WhoAmI");
    expect(connectLinkIn(d, nope, "pager")).toBeTruthy();
    expect(nope.text).toContain("nope");
    const asked = await call("/mcp/pager@nope", "Pager_WhoAmI", {
      capabilities: { elicitation: { url: {} } },
    });
    expect(asked.result?.resultType).toBe("input_required");
    expect(JSON.stringify(asked.result?.inputRequests)).toMatch(new RegExp(`${d.url}/connect/pager\\?code=`));
    for (const answer of [nope, asked]) expect(JSON.stringify(answer)).not.toMatch(/[ab]@example\.com/);
    expect(d.upstreams.of("pagerduty").length).toBe(before);
  });

  it("refreshes the work account's expired token once, with its own refresh token, leaving the home account's tokens alone", async () => {
    await sleep(1_500);
    const refreshes = () => d.googleAuth.tokenRequests.filter((body) => body.grant_type === "refresh_token");
    const homeCredentials = () =>
      new Set(d.upstreams.of("google", "home").map((request) => request.credential));
    const before = refreshes().length;
    const homeBefore = homeCredentials();
    expect(homeBefore.size).toBe(1);

    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        call(index % 2 ? "/mcp/sheets@work" : "/mcp/sheets@home", "Sheets_WhoAmI"),
      ),
    );
    for (const answer of answers) expect(answer.isError, answer.text).toBe(false);
    const made = refreshes().slice(before);
    expect(made).toHaveLength(1);
    expect(googleIssued.get("work")).toContain(made[0]?.refresh_token);
    expect(googleIssued.get("home")).not.toContain(made[0]?.refresh_token);

    // Work's calls now carry a token the refresh issued; home's, the one it was connected with.
    const work = d.upstreams.of("google", "work").at(-1)?.credential ?? "";
    expect(googleIssued.get("work")).not.toContain(work);
    expect(d.googleAuth.issued).toContain(work);
    expect(emailOf(await call("/mcp/sheets@home", "Sheets_WhoAmI"))).toBe("home@example.com");
    expect(homeCredentials()).toEqual(homeBefore);
    expect(googleIssued.get("home")).toContain([...homeBefore][0]);
  });

  it("counts PagerDuty's budget per person and account: b still answers once a's is used up", async () => {
    let limited: CallAnswer | undefined;
    for (let calls = 0; calls < 12 && !limited; calls++) {
      const answer = await call("/mcp/pager@a", "Pager_WhoAmI");
      if (answer.isError) limited = answer;
    }
    expect(limited?.text).toMatch(/^rate_limited: /);
    expect(emailOf(await call("/mcp/pager@b", "Pager_WhoAmI"))).toBe("b@example.com");
  });

  it("disconnects b at /connect (revoking it upstream) and leaves a, still the default", async () => {
    const list = await alice.open(`${d.url}/connect`);
    expect(list.status, list.text).toBe(200);
    const form = list.forms.find(
      (each) => /\/pager\/disconnect$/.test(each.action) && each.fields.label === "b",
    );
    expect(form, list.body).toBeDefined();
    const revocations = d.pagerAuth.revocations.length;
    const out = await alice.post(form?.action ?? "", form?.fields ?? {});
    expect(out.text).toMatch(/disconnected/i);
    await expect.poll(() => d.pagerAuth.revocations.length).toBe(revocations + 1);

    expect(connectLinkIn(d, await call("/mcp/pager@b", "Pager_WhoAmI"), "pager")).toBeTruthy();
    const after = await alice.open(`${d.url}/connect`);
    const pagerLabels = after.forms
      .filter((each) => /\/pager\/disconnect$/.test(each.action))
      .map((each) => each.fields.label);
    expect(pagerLabels).toEqual(["a"]);
    // The plain URL is a's too, and so is its budget, used up for the minute at /mcp/pager@a.
    expect((await call("/mcp/pager", "Pager_WhoAmI")).text).toMatch(/^rate_limited: /);
  });

  it("names the account that answered by label in each audit line, the default's too", () => {
    const lines = onlyReplica(d)
      .stderr()
      .split("\n")
      .filter((line) => line.includes('"msg":"tool call"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const principal = pseudonym(`${d.idp.url}#${PERSON}`);
    for (const accounts of ["pager=a", "pager=b", "pager=nope", "google=work", "google=home"])
      expect(lines).toContainEqual(expect.objectContaining({ principal, accounts }));
    expect(lines).toContainEqual(
      expect.objectContaining({ principal, accounts: "pager=nope", outcome: "unauthenticated" }),
    );
    // The plain URL's call acted as the default account, a, and its line says so.
    expect(
      lines.filter((line) => /ListIncidents$/.test(String(line.tool)) && line.accounts === "pager=a"),
    ).toHaveLength(2);
    expect(lines.filter((line) => line.outcome === "ok" && line.accounts === undefined)).toEqual([]);
  });
});
