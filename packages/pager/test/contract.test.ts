import { createContext, envHost } from "@toolkits/core";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPagerClient, type IncidentQuery } from "../src/client.js";
import { pagerAuth, SCOPES } from "../src/params.js";
import { SANDBOX_TOKEN, sandbox } from "../src/sandbox/index.js";
import { contractViolations, type SentRequest } from "./contract.js";

const API = "https://api.pagerduty.com";
const HEADERS = { accept: "application/vnd.pagerduty+json;version=2", "content-type": "application/json" };
const get = (pathAndQuery: string, headers: Record<string, string> = HEADERS): SentRequest => ({
  method: "GET",
  url: `${API}${pathAndQuery}`,
  headers,
});

describe("the contract check against PagerDuty's OpenAPI description", () => {
  it("accepts requests as the tools send them", () => {
    expect(
      contractViolations(
        get(
          "/incidents?limit=10&offset=0&statuses%5B%5D=triggered&team_ids%5B%5D=PT1&sort_by=created_at%3Adesc",
        ),
      ),
    ).toEqual([]);
    expect(contractViolations(get("/teams/PT1/members?limit=100&offset=0&include%5B%5D=users"))).toEqual([]);
    expect(contractViolations(get("/oncalls?since=2024-05-01T00%3A00%3A00.000Z&earliest=true"))).toEqual([]);
  });

  it.each([
    ["/incidents?team_id%5B%5D=PT1", "GET /incidents declares no query parameter team_id[]"],
    ["/log_entries?teams_ids%5B%5D=PT1", "GET /log_entries declares no query parameter teams_ids[]"],
    ["/oncalls?team_ids%5B%5D=PT1", "GET /oncalls declares no query parameter team_ids[]"],
    ["/incidents?status=triggered", "GET /incidents declares no query parameter status"],
    [
      "/incidents?statuses%5B%5D=open",
      "GET /incidents: statuses[]=open is not one of triggered, acknowledged, resolved",
    ],
    ["/teams/PT1?include%5B%5D=members", "GET /teams/{id}: include[]=members is not one of privileges"],
    ["/users?limit=ten", "GET /users: limit=ten is not an integer"],
    ["/log_entries?is_overview=yes", "GET /log_entries: is_overview=yes is not a boolean"],
    ["/oncalls?since=tomorrow", "GET /oncalls: since=tomorrow is not a date-time"],
    ["/incident/PQ1", "GET /incident/PQ1 is not an operation of PagerDuty's API"],
  ])("flags %s", (pathAndQuery, problem) => {
    expect(contractViolations(get(pathAndQuery))).toEqual([problem]);
  });

  it("flags a write method and a missing version header", () => {
    expect(contractViolations({ ...get("/incidents"), method: "POST" })).toEqual([
      "POST /incidents is not an operation of PagerDuty's API",
    ]);
    expect(contractViolations(get("/teams", { "content-type": "application/json" }))).toEqual([
      "GET /teams requires the Accept header",
    ]);
  });
});

describe("a misspelt filter", () => {
  const server = setupServer(...sandbox().handlers);
  const sent: SentRequest[] = [];
  server.events.on("request:start", ({ request }) => {
    sent.push({ method: request.method, url: request.url, headers: Object.fromEntries(request.headers) });
  });
  beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
  afterAll(() => server.close());

  it("is silently ignored by the upstream, but fails the contract check", async () => {
    const context = createContext(
      envHost({ PAGER_ACCESS_TOKEN: SANDBOX_TOKEN }),
      pagerAuth(SCOPES.incidents),
    );
    const client = await createPagerClient(context);
    const misspelt = { limit: 10, offset: 0, team_id: ["PT00000"] } as IncidentQuery;
    const page = await client.incidents(misspelt);
    // Like PagerDuty, the sandbox ignores the unknown name and answers unfiltered.
    expect(
      new Set(page.items.flatMap((incident) => incident.teams?.map((team) => team.id))).size,
    ).toBeGreaterThan(1);
    expect(sent.flatMap(contractViolations)).toEqual([
      "GET /incidents declares no query parameter team_id[]",
    ]);
  });
});
