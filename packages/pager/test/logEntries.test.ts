import { okData, useToolkitSandbox } from "@toolkits/core/testing";
import { describe, expect, it } from "vitest";
import { pagerToolkit } from "../src/index.js";
import { PAGER, readAllPages } from "./kit.js";

const pd = useToolkitSandbox(pagerToolkit, PAGER);

describe("Pager.ListLogEntries", () => {
  it("asks for the overview by default (PagerDuty's own default is the full feed)", async () => {
    const result = await pd.call("Pager.ListLogEntries", { limit: 50 });
    expect(result.isError, result.text).toBe(false);
    expect(pd.queries("/log_entries")[0]?.get("is_overview")).toBe("true");
    const types = new Set((okData(result).log_entries as { type: string }[]).map((entry) => entry.type));
    expect(types.has("notify")).toBe(false);
    expect(types.has("trigger")).toBe(true);
  });

  it("gives every entry with is_overview=false, newest first, as compact records", async () => {
    const result = await pd.call("Pager.ListLogEntries", { is_overview: false, limit: 50 });
    expect(pd.queries("/log_entries")[0]?.get("is_overview")).toBe("false");
    const entries = result.data?.log_entries as Record<string, unknown>[];
    expect(entries.some((entry) => entry.type === "notify")).toBe(true);
    const times = entries.map((entry) => entry.created_at as string);
    expect(times).toEqual([...times].sort().reverse());
    expect(entries.find((entry) => entry.type === "trigger")).toEqual({
      id: expect.any(String),
      type: "trigger",
      summary: "Triggered through the API.",
      created_at: expect.any(String),
      agent: { id: expect.stringMatching(/^PV/), name: expect.any(String) },
      channel: "api",
      incident: { id: expect.stringMatching(/^PQ/), name: expect.stringMatching(/^\[#\d+\] /) },
      service: { id: expect.stringMatching(/^PV/), name: expect.any(String) },
      teams: [{ id: expect.stringMatching(/^PT/), name: expect.any(String) }],
    });
  });

  it("sends team_ids[], the window and the time zone, and renders times in that zone", async () => {
    const since = new Date(pd.sandbox.account.now - 20 * 86_400_000).toISOString();
    const until = new Date(pd.sandbox.account.now).toISOString();
    const result = await pd.call("Pager.ListLogEntries", {
      team_ids: ["PT00003"],
      since,
      until,
      time_zone: "America/New_York",
    });
    const [query] = pd.queries("/log_entries");
    expect(query?.getAll("team_ids[]")).toEqual(["PT00003"]);
    expect(query?.get("since")).toBe(since);
    expect(query?.get("until")).toBe(until);
    expect(query?.get("time_zone")).toBe("America/New_York");
    for (const entry of okData(result).log_entries as { teams: { id: string }[]; created_at: string }[]) {
      expect(entry.teams).toEqual([{ id: "PT00003", name: "Data" }]);
      expect(entry.created_at).toMatch(/-0[45]:00$/);
    }
  });

  it("pages to the end", async () => {
    const { items } = await readAllPages(pd.call, "Pager.ListLogEntries", "log_entries", { limit: 50 });
    const overview = pd.sandbox.account.logEntries.filter((entry) => !entry.type.startsWith("notify"));
    expect(items.map((entry) => entry.id).sort()).toEqual(overview.map((entry) => entry.id).sort());
  });
});
