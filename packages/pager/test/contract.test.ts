import { createContext, envHost } from "@toolkits/core";
import { type RecordedRequest, useToolkitSandbox } from "@toolkits/core/testing";
import { describe, expect, it } from "vitest";
import { createPagerClient, type IncidentQuery } from "../src/client.js";
import { pagerToolkit } from "../src/index.js";
import { pagerAuth, SCOPES } from "../src/params.js";
import { PAGER, pagerContract } from "./kit.js";

const API = "https://api.pagerduty.com";
const HEADERS = {
  accept: "application/vnd.pagerduty+json;version=2",
  "content-type": "application/json",
  authorization: "Bearer token",
};
const get = (pathAndQuery: string, headers: Record<string, string> = HEADERS): RecordedRequest => ({
  method: "GET",
  url: `${API}${pathAndQuery}`,
  headers,
  body: "",
});
const problems = (request: RecordedRequest) => pagerContract.problems(request);

describe("the contract check against PagerDuty's OpenAPI description", () => {
  it("accepts requests as the tools send them", () => {
    expect(
      problems(
        get(
          "/incidents?limit=10&offset=0&statuses%5B%5D=triggered&team_ids%5B%5D=PT1&sort_by=created_at%3Adesc",
        ),
      ),
    ).toEqual([]);
    expect(problems(get("/teams/PT1/members?limit=100&offset=0&include%5B%5D=users"))).toEqual([]);
    expect(problems(get("/oncalls?since=2024-05-01T00%3A00%3A00.000Z&earliest=true"))).toEqual([]);
    expect(problems(get("/teams", { ...HEADERS, authorization: "Token token=classic" }))).toEqual([]);
    expect(problems({ ...get("/teams"), url: "https://api.eu.pagerduty.com/teams" })).toEqual([]);
  });

  it.each([
    ["/incidents?team_id%5B%5D=PT1", "GET /incidents: query parameter team_id[] is not declared"],
    ["/log_entries?teams_ids%5B%5D=PT1", "GET /log_entries: query parameter teams_ids[] is not declared"],
    ["/oncalls?team_ids%5B%5D=PT1", "GET /oncalls: query parameter team_ids[] is not declared"],
    ["/incidents?status=triggered", "GET /incidents: query parameter status is not declared"],
    [
      "/incidents?statuses%5B%5D=open",
      "GET /incidents: statuses[]=open is not one of triggered, acknowledged, resolved",
    ],
    ["/teams/PT1?include%5B%5D=members", "GET /teams/{id}: include[]=members is not one of privileges"],
    ["/users?limit=ten", "GET /users: limit=ten is not an integer"],
    ["/log_entries?is_overview=yes", "GET /log_entries: is_overview=yes is not a boolean"],
    ["/oncalls?since=tomorrow", "GET /oncalls: since=tomorrow is not a date-time"],
    ["/incident/PQ1", `GET ${API}/incident/PQ1 is not an operation of PagerDuty API`],
  ])("flags %s", (pathAndQuery, problem) => {
    expect(problems(get(pathAndQuery))).toEqual([problem]);
  });

  it("flags a write method, a missing version header, a credential of another form and another host", () => {
    expect(problems({ ...get("/incidents"), method: "POST" })).toEqual([
      `POST ${API}/incidents is not an operation of PagerDuty API`,
    ]);
    const { accept: _, ...withoutAccept } = HEADERS;
    expect(problems(get("/teams", withoutAccept))).toEqual(["GET /teams: required header Accept is missing"]);
    expect(problems(get("/teams", { ...HEADERS, authorization: "Basic dXNlcg==" }))).toEqual([
      "GET /teams: header authorization does not match /^(Bearer \\S+|Token token=\\S+)$/",
    ]);
    expect(problems({ ...get("/teams"), url: "https://api.pagerduty.example/teams" })).toEqual([
      "GET /teams: https://api.pagerduty.example is not a server of PagerDuty API",
    ]);
  });
});

describe("a misspelt filter", () => {
  // No contract check after the file: this test sends a misspelt request on purpose.
  const pd = useToolkitSandbox(pagerToolkit, { ...PAGER, contract: undefined });

  it("is silently ignored by the upstream, but fails the contract check", async () => {
    const context = createContext(envHost(pd.env), pagerAuth(SCOPES.incidents));
    const client = await createPagerClient(context);
    const misspelt = { limit: 10, offset: 0, team_id: ["PT00000"] } as IncidentQuery;
    const page = await client.incidents(misspelt);
    // Like PagerDuty, the sandbox ignores the unknown name and answers unfiltered.
    expect(
      new Set(page.items.flatMap((incident) => incident.teams?.map((team) => team.id))).size,
    ).toBeGreaterThan(1);
    expect(pd.requests.flatMap(problems)).toEqual([
      "GET /incidents: query parameter team_id[] is not declared",
    ]);
  });
});
