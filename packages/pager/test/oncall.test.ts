import { okData, useToolkitSandbox } from "@toolkits/core/testing";
import { describe, expect, it } from "vitest";
import { pagerToolkit } from "../src/index.js";
import { sandbox } from "../src/sandbox/index.js";
import { LOOK_AHEAD_DAYS } from "../src/tools/whoAmI.js";
import { PAGER, readAllPages } from "./kit.js";

const pd = useToolkitSandbox(pagerToolkit, PAGER);
const DAY_MS = 86_400_000;

describe("Pager.WhoAmI", () => {
  it("gives the profile, the shift on now and the next shift within 30 days", async () => {
    const result = await pd.call("Pager.WhoAmI");
    expect(result.isError, result.text).toBe(false);
    const me = pd.sandbox.account.me;
    const today = Math.floor(pd.sandbox.account.now / DAY_MS) * DAY_MS;
    expect(result.data).toEqual({
      user: {
        id: me.id,
        name: me.name,
        email: me.email,
        role: me.role,
        job_title: me.job_title,
        time_zone: me.time_zone,
        teams: [
          { id: "PT00000", name: "Payments" },
          { id: "PT00001", name: "Platform" },
        ],
        html_url: me.html_url,
      },
      on_call_now: true,
      current_shifts: [
        {
          escalation_policy: { id: "PE00000", name: "Payments Escalation" },
          level: 1,
          schedule: { id: "PS00000", name: "Payments Primary" },
          start: iso(today),
          end: iso(today + DAY_MS),
        },
      ],
      next_shift: {
        escalation_policy: { id: "PE00001", name: "Platform Escalation" },
        level: 1,
        schedule: { id: "PS00001", name: "Platform Primary" },
        start: iso(today + 3 * DAY_MS),
        end: iso(today + 10 * DAY_MS),
      },
    });
  });

  it("asks /oncalls for the user's shifts over a 30-day window", async () => {
    await pd.call("Pager.WhoAmI");
    expect(pd.queries("/users/me")[0]?.getAll("include[]")).toEqual(["teams"]);
    const [query] = pd.queries("/oncalls");
    expect(query?.getAll("user_ids[]")).toEqual([pd.sandbox.account.me.id]);
    const window = Date.parse(query?.get("until") ?? "") - Date.parse(query?.get("since") ?? "");
    expect(window).toBe(LOOK_AHEAD_DAYS * DAY_MS);
  });

  it("says when the user is not on call, still naming the next shift", async () => {
    // An account whose rotations began a day earlier: "me" had yesterday's Payments shift.
    const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
    await pd.reset(sandbox({ now: today - DAY_MS }));
    const result = await pd.call("Pager.WhoAmI");
    expect(result.data).toMatchObject({
      on_call_now: false,
      current_shifts: [],
      next_shift: { schedule: { id: "PS00001" } },
    });
  });
});

describe("Pager.ListOnCalls", () => {
  it("lists who is on call now, permanent direct targets included", async () => {
    const result = await pd.call("Pager.ListOnCalls", { limit: 50 });
    expect(result.isError, result.text).toBe(false);
    const oncalls = result.data?.oncalls as Record<string, unknown>[];
    expect(oncalls).toContainEqual({
      user: { id: pd.sandbox.account.me.id, name: pd.sandbox.account.me.name },
      escalation_policy: { id: "PE00000", name: "Payments Escalation" },
      level: 1,
      schedule: { id: "PS00000", name: "Payments Primary" },
      start: expect.any(String),
      end: expect.any(String),
    });
    // Level 2 targets a manager directly: on call permanently, with no schedule or times.
    expect(oncalls).toContainEqual({
      user: { id: "PU00001", name: "Jordan Costa" },
      escalation_policy: { id: "PE00000", name: "Payments Escalation" },
      level: 2,
    });
    expect(oncalls).toHaveLength(10);
  });

  it("sends schedule and policy filters as [] arrays and a window with a time zone", async () => {
    const since = new Date(pd.sandbox.account.now).toISOString();
    const until = new Date(pd.sandbox.account.now + 7 * DAY_MS).toISOString();
    const result = await pd.call("Pager.ListOnCalls", {
      schedule_ids: ["PS00000"],
      escalation_policy_ids: ["PE00000"],
      since,
      until,
      time_zone: "Asia/Tokyo",
    });
    const [query] = pd.queries("/oncalls");
    expect(query?.getAll("schedule_ids[]")).toEqual(["PS00000"]);
    expect(query?.getAll("escalation_policy_ids[]")).toEqual(["PE00000"]);
    expect(query?.get("time_zone")).toBe("Asia/Tokyo");
    const oncalls = result.data?.oncalls as { start: string; schedule: { id: string } }[];
    // A daily rotation over a week: 7 or 8 shifts overlap the window.
    expect(oncalls.length).toBeGreaterThanOrEqual(7);
    for (const entry of oncalls) {
      expect(entry.schedule.id).toBe("PS00000");
      expect(entry.start).toMatch(/\+09:00$/);
    }
  });

  it("turns team_ids into the teams' escalation policies, since /oncalls has no team filter", async () => {
    const result = await pd.call("Pager.ListOnCalls", { team_ids: ["PT00002"], limit: 50 });
    expect(pd.queries("/escalation_policies")[0]?.getAll("team_ids[]")).toEqual(["PT00002"]);
    const [query] = pd.queries("/oncalls");
    expect(query?.has("team_ids[]")).toBe(false);
    expect(query?.getAll("escalation_policy_ids[]")).toEqual(["PE00002"]);
    const policies = (okData(result).oncalls as { escalation_policy: { id: string } }[]).map(
      (e) => e.escalation_policy.id,
    );
    expect(new Set(policies)).toEqual(new Set(["PE00002"]));
  });

  it("answers an empty list without calling /oncalls when a team owns none of the asked policies", async () => {
    const result = await pd.call("Pager.ListOnCalls", {
      team_ids: ["PT00002"],
      escalation_policy_ids: ["PE00000"],
    });
    expect(result.data).toEqual({ oncalls: [], limit: 10, offset: 0, more: false });
    expect(pd.queries("/oncalls")).toEqual([]);
  });

  it("pages to the end", async () => {
    const until = new Date(pd.sandbox.account.now + 14 * DAY_MS).toISOString();
    const { items, pages } = await readAllPages(pd.call, "Pager.ListOnCalls", "oncalls", {
      until,
      limit: 20,
    });
    expect(pages.length).toBeGreaterThan(1);
    expect(new Set(items.map((entry) => JSON.stringify(entry))).size).toBe(items.length);
  });

  it("refuses an unknown time zone before sending anything", async () => {
    const result = await pd.call("Pager.ListOnCalls", { time_zone: "Mars/Olympus_Mons" });
    expect(result.text).toMatch(/^invalid_input: .*time_zone: must be an IANA time zone/);
    expect(pd.requests).toEqual([]);
  });
});

describe("Pager.ListSchedules", () => {
  it("lists schedules with rotation members, not presenting them as on call", async () => {
    const result = await pd.call("Pager.ListSchedules", { time_zone: "Europe/Berlin" });
    expect(result.isError, result.text).toBe(false);
    const [payments] = okData(result).schedules as Record<string, unknown>[];
    expect(payments).toMatchObject({
      id: "PS00000",
      name: "Payments Primary",
      time_zone: "Europe/London",
      escalation_policies: [{ id: "PE00000", name: "Payments Escalation" }],
    });
    expect(payments?.rotation_members).toHaveLength(6);
    expect(JSON.stringify(result.data)).not.toMatch(/on_?call/i);
    expect(pd.queries("/schedules")[0]?.get("time_zone")).toBe("Europe/Berlin");
    const { tools } = await (await pd.connect()).client.listTools();
    const listing = JSON.stringify(tools.find((tool) => tool.name === "Pager.ListSchedules"));
    expect(listing).toContain("not who is on call now");
  });

  it("pages to the end", async () => {
    const { items, pages } = await readAllPages(pd.call, "Pager.ListSchedules", "schedules", { limit: 2 });
    expect(items.map((s) => s.id)).toEqual(pd.sandbox.account.schedules.map((s) => s.id));
    expect(pages).toHaveLength(3);
  });
});

function iso(ms: number): string {
  return new Date(ms).toISOString().replace(".000", "");
}
