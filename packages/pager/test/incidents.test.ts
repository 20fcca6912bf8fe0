import { useToolkitSandbox } from "@toolkits/core/testing";
import { describe, expect, it } from "vitest";
import { pagerToolkit } from "../src/index.js";
import { PAGER, readAllPages } from "./kit.js";

const pd = useToolkitSandbox(pagerToolkit, PAGER);
const DAY_MS = 86_400_000;

describe("Pager.ListIncidents", () => {
  it("lists the last 30 days' incidents newest first as compact records", async () => {
    const result = await pd.call("Pager.ListIncidents");
    expect(result.isError, result.text).toBe(false);
    const incidents = result.data?.incidents as Record<string, unknown>[];
    expect(incidents).toHaveLength(10);
    const times = incidents.map((incident) => incident.created_at as string);
    expect(times).toEqual([...times].sort().reverse());
    expect(incidents[0]).toEqual({
      id: expect.any(String),
      number: expect.any(Number),
      title: expect.any(String),
      status: expect.stringMatching(/^(triggered|acknowledged|resolved)$/),
      urgency: expect.stringMatching(/^(high|low)$/),
      priority: expect.stringMatching(/^P\d$/),
      created_at: expect.any(String),
      last_status_change_at: expect.any(String),
      service: { id: expect.any(String), name: expect.any(String) },
      escalation_policy: { id: expect.any(String), name: expect.any(String) },
      teams: [{ id: expect.any(String), name: expect.any(String) }],
      assignees: expect.any(Array),
      html_url: expect.stringContaining("/incidents/"),
      ...(incidents[0]?.resolved_at ? { resolved_at: expect.any(String) } : {}),
    });
    expect(result.data).toMatchObject({ limit: 10, offset: 0, more: true, next_offset: 10 });
    const [query] = pd.queries("/incidents");
    expect(query?.toString()).toBe("limit=10&offset=0&sort_by=created_at%3Adesc");
  });

  it("sends status, urgency, service and team filters as PagerDuty's [] arrays", async () => {
    const services = pd.sandbox.account.services.slice(0, 2).map((service) => service.id);
    const team = pd.sandbox.account.teams[0]?.id as string;
    const result = await pd.call("Pager.ListIncidents", {
      status: "resolved",
      urgency: "high",
      service_ids: services,
      team_ids: [team],
      limit: 50,
    });
    const [query] = pd.queries("/incidents");
    expect(query?.getAll("statuses[]")).toEqual(["resolved"]);
    expect(query?.getAll("urgencies[]")).toEqual(["high"]);
    expect(query?.getAll("service_ids[]")).toEqual(services);
    expect(query?.getAll("team_ids[]")).toEqual([team]);
    const incidents = result.data?.incidents as {
      status: string;
      urgency: string;
      service: { id: string };
    }[];
    expect(incidents.length).toBeGreaterThan(0);
    for (const incident of incidents) {
      expect(incident).toMatchObject({ status: "resolved", urgency: "high" });
      expect(services).toContain(incident.service.id);
    }
  });

  it("reaches incidents older than 30 days with since/until", async () => {
    const until = new Date(pd.sandbox.account.now - 30 * DAY_MS).toISOString();
    const since = new Date(pd.sandbox.account.now - 60 * DAY_MS).toISOString();
    const { items } = await readAllPages(pd.call, "Pager.ListIncidents", "incidents", {
      since,
      until,
      limit: 50,
    });
    const expected = pd.sandbox.account.incidents.filter(
      (i) => i.created_at >= since.replace(".000", "") && i.created_at < until.replace(".000", ""),
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(items.map((i) => i.id).sort()).toEqual(expected.map((i) => i.id).sort());
    expect(pd.queries("/incidents")[0]?.get("since")).toBe(since);
  });

  it("pages to the end without skipping or repeating an incident", async () => {
    const { items, pages } = await readAllPages(pd.call, "Pager.ListIncidents", "incidents", { limit: 7 });
    const recent = pd.sandbox.account.incidents.filter(
      (i) => Date.parse(i.created_at) >= pd.sandbox.account.now - 30 * DAY_MS,
    );
    expect(new Set(items.map((i) => i.id)).size).toBe(recent.length);
    expect(pages.length).toBe(Math.ceil(recent.length / 7));
    expect(pages.at(-1)?.data).not.toHaveProperty("next_offset");
    expect(pd.queries("/incidents").map((q) => q.get("offset"))).toEqual(pages.map((_, i) => String(i * 7)));
  });

  it.each([
    [{ limit: 51 }, /limit: .*50/],
    [{ limit: 0 }, /limit: .*1/],
    [{ status: "open" }, /status: Invalid option: expected one of "triggered"\|"acknowledged"\|"resolved"/],
    [{ urgency: "urgent" }, /urgency: Invalid option: expected one of "high"\|"low"/],
    [{ since: "last tuesday" }, /since: must be an ISO-8601 time/],
    [
      { since: "2024-05-02T00:00:00Z", until: "2024-05-01T00:00:00Z" },
      /until \(2024-05-01T00:00:00Z\) must be later than since/,
    ],
    [
      { since: "2024-01-01T00:00:00Z", until: "2024-09-01T00:00:00Z" },
      /since to until spans 244 days; PagerDuty allows at most 183/,
    ],
    [{ offset: 9995 }, /offset \+ limit is 10005; PagerDuty serves at most the first 10000 records/],
    [{ offset: -1 }, /offset: .*0/],
  ])("refuses %j before sending anything", async (args, message) => {
    const result = await pd.call("Pager.ListIncidents", args);
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^invalid_input: /);
    expect(result.text).toMatch(message);
    expect(pd.requests).toEqual([]);
  });
});

describe("Pager.GetIncident", () => {
  it("gets an incident with its acknowledgements, alert counts and references", async () => {
    const incident = pd.sandbox.account.incidents.find((i) => i.status === "acknowledged");
    const result = await pd.call("Pager.GetIncident", { incident_id: incident?.id });
    expect(result.isError, result.text).toBe(false);
    expect(result.data?.incident).toMatchObject({
      id: incident?.id,
      number: incident?.incident_number,
      status: "acknowledged",
      service: { id: incident?.service.id, name: incident?.service.summary },
      assignees: [{ id: incident?.assignments?.[0]?.assignee.id }],
      acknowledged_by: [{ id: incident?.acknowledgements?.[0]?.acknowledger.id, at: expect.any(String) }],
      alert_counts: incident?.alert_counts,
      incident_key: incident?.incident_key,
    });
  });

  it("accepts the incident number", async () => {
    const incident = pd.sandbox.account.incidents[3];
    const result = await pd.call("Pager.GetIncident", { incident_id: String(incident?.incident_number) });
    expect(result.data?.incident).toMatchObject({ id: incident?.id });
  });

  it("reports an unknown id as not_found with PagerDuty's message and where to find ids", async () => {
    const result = await pd.call("Pager.GetIncident", { incident_id: "PNOPE42" });
    expect(result.isError).toBe(true);
    expect(result.text).toBe(
      'not_found: GET /incidents/{id} failed with HTTP 404: Incident Not Found. No such id "PNOPE42"; Pager.ListIncidents lists valid ids.',
    );
  });

  it("encodes an id so it cannot change the path", async () => {
    const result = await pd.call("Pager.GetIncident", { incident_id: "../users" });
    expect(result.isError).toBe(true);
    expect(pd.requests.map((r) => new URL(r.url).pathname)).toEqual(["/incidents/..%2Fusers"]);
  });
});
