import { isWatchedSecret, requestContract, useToolkitSandbox } from "@toolkits/core/testing";
import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { pagerToolkit } from "../src/index.js";
import { SANDBOX_TOKEN, sandbox } from "../src/sandbox/index.js";
import { PAGER, PAGER_API, PAGER_QUIRKS } from "./kit.js";

const API = "https://api.pagerduty.com";
const PROXY = "https://pagerduty-proxy.example";
// PAGER_API_URL may name any host: the contract takes this file's proxy as one of PagerDuty's.
const pd = useToolkitSandbox(pagerToolkit, {
  ...PAGER,
  contract: requestContract(PAGER_API, { ...PAGER_QUIRKS, hosts: [...PAGER_QUIRKS.hosts, PROXY] }),
});

describe("credentials", () => {
  it("sends an OAuth token as Bearer with PagerDuty's v2 Accept header", async () => {
    await pd.call("Pager.ListTeams");
    expect(pd.requests[0]?.headers).toMatchObject({
      authorization: `Bearer ${SANDBOX_TOKEN}`,
      accept: "application/vnd.pagerduty+json;version=2",
      "content-type": "application/json",
    });
  });

  it("sends a classic API token as Token token=… when no OAuth token is configured", async () => {
    const result = await pd.call("Pager.ListTeams", {}, { PAGER_API_TOKEN: SANDBOX_TOKEN });
    expect(result.isError, result.text).toBe(false);
    expect(pd.requests[0]?.headers.authorization).toBe(`Token token=${SANDBOX_TOKEN}`);
  });

  it("answers unauthenticated with how to configure, sending nothing, when no credential is set", async () => {
    const result = await pd.call("Pager.ListIncidents", {}, {});
    expect(result.isError).toBe(true);
    expect(result.text).toBe(
      "unauthenticated: An access token for pager is not configured. Set PAGER_ACCESS_TOKEN to an OAuth access token for pager (or PAGER_API_TOKEN to an API token).",
    );
    expect(pd.requests).toEqual([]);
  });

  it("maps a refused credential (401) to unauthenticated naming the token and the region", async () => {
    const secret = "wrong-token-7f3a9c";
    const result = await pd.call("Pager.ListIncidents", {}, { PAGER_ACCESS_TOKEN: secret });
    expect(result.isError).toBe(true);
    expect(result.text).toBe(
      "unauthenticated: GET /incidents failed with HTTP 401: Authentication failed. Check that PAGER_ACCESS_TOKEN (or PAGER_API_TOKEN) holds a valid token and that PAGER_REGION (now us) matches the account's region (us or eu): a token sent to the other region is refused.",
    );
    expect(result.text).not.toContain(secret);
    expect(pd.requests).toHaveLength(1);
  });

  it("explains that WhoAmI needs a user-level credential when /users/me is refused", async () => {
    pd.server.use(
      http.get(`${API}/users/me`, () =>
        HttpResponse.json({ error: { message: "Access Denied", code: 2010 } }, { status: 403 }),
      ),
    );
    const result = await pd.call("Pager.WhoAmI");
    expect(result.text).toMatch(/^forbidden: .*Access Denied\. Pager\.WhoAmI needs a user-level credential/);
  });
});

describe("regions", () => {
  it("calls the EU host when PAGER_REGION=eu", async () => {
    await pd.reset(sandbox({ baseUrl: "https://api.eu.pagerduty.com" }));
    const result = await pd.call("Pager.ListTeams", {}, { ...pd.env, PAGER_REGION: "eu" });
    expect(result.isError, result.text).toBe(false);
    expect(new URL(pd.requests[0]?.url ?? "").host).toBe("api.eu.pagerduty.com");
  });

  it("lets PAGER_API_URL override the region", async () => {
    await pd.reset(sandbox({ baseUrl: PROXY }));
    const result = await pd.call(
      "Pager.ListTeams",
      {},
      { ...pd.env, PAGER_API_URL: PROXY, PAGER_REGION: "eu" },
    );
    expect(result.isError, result.text).toBe(false);
    expect(pd.requests[0]?.url).toBe(`${PROXY}/teams?limit=10&offset=0`);
  });

  it("refuses an unknown region, naming the allowed values, before sending anything", async () => {
    const result = await pd.call("Pager.ListTeams", {}, { ...pd.env, PAGER_REGION: "apac" });
    expect(result.text).toBe(
      'invalid_input: PAGER_REGION is "apac"; allowed values: us, eu. Fix the server\'s configuration and restart it.',
    );
    expect(pd.requests).toEqual([]);
  });
});

describe("rate limits", () => {
  const limited = (reset: string) =>
    HttpResponse.json(
      { error: { message: "Rate Limit Exceeded", code: 2020 } },
      {
        status: 429,
        headers: { "ratelimit-limit": "960", "ratelimit-remaining": "0", "ratelimit-reset": reset },
      },
    );

  it("waits out ratelimit-reset and retries", async () => {
    pd.server.use(http.get(`${API}/incidents`, () => limited("0"), { once: true }));
    const result = await pd.call("Pager.ListIncidents");
    expect(result.isError, result.text).toBe(false);
    expect(pd.queries("/incidents")).toHaveLength(2);
  });

  it("reports rate_limited once the retries are spent", async () => {
    pd.server.use(http.get(`${API}/incidents`, () => limited("1")));
    const result = await pd.call("Pager.ListIncidents");
    expect(result.isError).toBe(true);
    expect(result.text).toBe(
      "rate_limited: GET /incidents failed with HTTP 429: Rate Limit Exceeded. Retry after 1 s.",
    );
    expect(pd.queries("/incidents")).toHaveLength(4);
  });

  it("gives up at once, saying when to retry, when the reset is beyond the retry budget", async () => {
    pd.server.use(http.get(`${API}/incidents`, () => limited("45")));
    const result = await pd.call("Pager.ListIncidents");
    expect(result.text).toBe(
      "rate_limited: GET /incidents failed with HTTP 429: Rate Limit Exceeded. Retry after 45 s.",
    );
    expect(pd.queries("/incidents")).toHaveLength(1);
  });
});

describe("other upstream failures", () => {
  it("quotes every entry of PagerDuty's errors[] on a 400", async () => {
    pd.server.use(
      http.get(`${API}/incidents`, () =>
        HttpResponse.json(
          {
            error: {
              message: "Invalid Input Provided",
              code: 2001,
              errors: ["Team ids must be a list of ids."],
            },
          },
          { status: 400 },
        ),
      ),
    );
    const result = await pd.call("Pager.ListIncidents", { team_ids: ["PT00000"] });
    expect(result.text).toBe(
      "invalid_input: GET /incidents failed with HTTP 400: Invalid Input Provided; Team ids must be a list of ids.",
    );
  });

  it("names the plan when a feature is not available (402)", async () => {
    pd.server.use(
      http.get(`${API}/teams`, () =>
        HttpResponse.json(
          { error: { message: "Account does not have the abilities", code: 2014 } },
          { status: 402 },
        ),
      ),
    );
    const result = await pd.call("Pager.ListTeams");
    expect(result.text).toBe(
      "forbidden: GET /teams failed with HTTP 402: Account does not have the abilities. The PagerDuty account's plan does not include this feature or filter.",
    );
  });
});

/** Arguments that make each tool succeed against the default sandbox. */
const VALID_ARGS: Record<string, Record<string, unknown>> = {
  "Pager.GetIncident": { incident_id: "PQ00000" },
  "Pager.GetEscalationPolicy": { escalation_policy_id: "PE00000" },
  "Pager.GetService": { service_id: "PV00000" },
  "Pager.GetTeam": { team_id: "PT00000" },
  "Pager.SearchUsers": { query: "Avrey Quinn" },
};

describe.each(pagerToolkit.tools.map((tool) => tool.name))("%s", (name) => {
  const args = VALID_ARGS[name] ?? {};

  it("turns a refused credential into unauthenticated with how to fix it", async () => {
    const result = await pd.call(name, args, { PAGER_ACCESS_TOKEN: "expired-token-0000" });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(
      /^unauthenticated: GET \S+ failed with HTTP 401: Authentication failed\. Check that/,
    );
    expect(result.text).toContain("PAGER_REGION");
  });

  it("retries a 429 after ratelimit-reset and succeeds", async () => {
    pd.server.use(
      http.get(
        `${API}/*`,
        () =>
          HttpResponse.json(
            { error: { message: "Rate Limit Exceeded", code: 2020 } },
            { status: 429, headers: { "ratelimit-reset": "0" } },
          ),
        { once: true },
      ),
    );
    const result = await pd.call(name, args);
    expect(result.isError, result.text).toBe(false);
    const paths = pd.requests.map((request) => request.url);
    expect(paths.length).toBeGreaterThan(new Set(paths).size);
  });
});

it("runs under the suite's leak scan, which watches the sandbox's credential", () => {
  expect(isWatchedSecret(SANDBOX_TOKEN)).toBe(true);
});
