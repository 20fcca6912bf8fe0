import { useToolkitSandbox } from "@toolkits/core/testing";
import { describe, expect, it } from "vitest";
import { pagerToolkit } from "../src/index.js";
import { SANDBOX_TOKEN, sandbox } from "../src/sandbox/index.js";
import { PAGER } from "./kit.js";

// Served without the contract check: these tests send invalid requests on purpose.
const pd = useToolkitSandbox(pagerToolkit, { ...PAGER, contract: undefined });
const API = "https://api.pagerduty.com";
const headers = {
  authorization: `Bearer ${SANDBOX_TOKEN}`,
  accept: "application/vnd.pagerduty+json;version=2",
  "content-type": "application/json",
};
const fetchJson = async (path: string, init: RequestInit = { headers }) => {
  const response = await fetch(`${API}${path}`, init);
  // biome-ignore lint/suspicious/noExplicitAny: the tests read whichever PagerDuty body came back
  return { status: response.status, body: (await response.json()) as any };
};

describe("sandbox()", () => {
  it("is deterministic for a given instant and fresh on every call", () => {
    const now = "2025-03-01T12:00:00Z";
    const first = sandbox({ now });
    const second = sandbox({ now });
    expect(JSON.stringify(second.account)).toBe(JSON.stringify(first.account));
    first.account.incidents.pop();
    expect(second.account.incidents).toHaveLength(60);
    expect(second.tokens).toEqual({ pager: "sandbox-pager-token" });
  });

  it("holds a varied account: dozens of incidents over services, teams, statuses and urgencies", () => {
    const { account } = sandbox();
    expect(account.incidents.length).toBeGreaterThanOrEqual(24);
    expect(new Set(account.incidents.map((i) => i.service.id)).size).toBeGreaterThanOrEqual(5);
    expect(new Set(account.incidents.map((i) => i.teams?.[0]?.id)).size).toBe(account.teams.length);
    expect(new Set(account.incidents.map((i) => i.status))).toEqual(
      new Set(["triggered", "acknowledged", "resolved"]),
    );
    expect(new Set(account.incidents.map((i) => i.urgency))).toEqual(new Set(["high", "low"]));
    expect(new Set(account.memberships.map((m) => m.role))).toEqual(
      new Set(["manager", "responder", "observer"]),
    );
    expect(account.logEntries.length).toBeGreaterThan(account.incidents.length * 2);
    expect(account.schedules.length).toBe(account.teams.length);
    expect(account.policies.every((p) => p.escalation_rules.length === 2)).toBe(true);
  });

  it("builds large directories of distinct people", () => {
    const { account } = sandbox({ users: 10_000 });
    expect(new Set(account.users.map((user) => user.name)).size).toBe(10_000);
    expect(new Set(account.users.map((user) => user.email)).size).toBe(10_000);
  });
});

describe("the sandbox's answers", () => {
  it("answers 401 with PagerDuty's error body to any other credential", async () => {
    const response = await fetchJson("/teams", { headers: { ...headers, authorization: "Bearer nope" } });
    expect(response).toEqual({
      status: 401,
      body: { error: { message: "Authentication failed", code: 2006 } },
    });
  });

  it("uses PagerDuty's envelope: default limit 25, at most 100, total only when asked", async () => {
    const first = await fetchJson("/users");
    expect(first.body).toMatchObject({ limit: 25, offset: 0, more: true, total: null });
    expect(first.body.users).toHaveLength(25);
    const counted = await fetchJson("/users?limit=500&total=true");
    expect(counted.body).toMatchObject({ limit: 100, more: false, total: 40 });
  });

  it("refuses offset + limit past 10,000 like PagerDuty", async () => {
    const response = await fetchJson("/users?limit=100&offset=9950");
    expect(response).toEqual({
      status: 400,
      body: {
        error: {
          message: "Invalid Input Provided",
          code: 2001,
          errors: ["Offset+limit exceeds maximum allowed value of 10000."],
        },
      },
    });
  });

  it("answers an unknown id with a 404 and PagerDuty's error body", async () => {
    const response = await fetchJson("/services/PNOPE00");
    expect(response).toEqual({ status: 404, body: { error: { message: "Service Not Found", code: 5002 } } });
  });

  it("keeps only each user's first shift per policy and level with earliest=true", async () => {
    const until = new Date(pd.sandbox.account.now + 20 * 86_400_000).toISOString();
    const all = await fetchJson(`/oncalls?schedule_ids%5B%5D=PS00000&until=${until}&limit=100`);
    const earliest = await fetchJson(
      `/oncalls?schedule_ids%5B%5D=PS00000&until=${until}&earliest=true&limit=100`,
    );
    const users = (body: { oncalls: { user: { id: string } }[] }) =>
      body.oncalls.map((entry) => entry.user.id);
    expect(users(all.body).length).toBeGreaterThan(users(earliest.body).length);
    expect(new Set(users(earliest.body)).size).toBe(users(earliest.body).length);
  });

  it("validates enumerations and windows like PagerDuty", async () => {
    const status = await fetchJson("/incidents?statuses%5B%5D=open");
    expect(status.status).toBe(400);
    const window = await fetchJson("/oncalls?until=2999-01-01T00%3A00%3A00Z");
    expect(window.body.error.errors).toEqual(["until cannot be more than 90 days in the future."]);
  });
});
