import { toMcpTool } from "@toolkits/core/mcp";
import { createToolSearch } from "@toolkits/core/search";
import { describe, expect, it } from "vitest";
import { TOOLKITS } from "../src/toolkits.js";

/** The served catalogue's entries, as tools/list gives them (dotted names). */
const entries = Object.values(TOOLKITS)
  .flatMap((kit) => kit.tools)
  .map(toMcpTool);

/** The same entries under the underscore names some clients need (`Pager_ListOnCalls`). */
const underscored = entries.map((entry) => ({ ...entry, name: entry.name.replace(".", "_") }));

/** A plain-language request, the tool it should find, and how high it must rank (1 = first). */
const requests: [query: string, tool: string, rank: 1 | 2 | 3][] = [
  ["who is on call for payments", "Pager.ListOnCalls", 1],
  ["who is oncall right now", "Pager.ListOnCalls", 1],
  ["show me open incidents", "Pager.ListIncidents", 2],
  ["what happened on incident 123", "Pager.ListLogEntries", 1],
  ["get the incident details", "Pager.GetIncident", 1],
  ["escalation policy for the database team", "Pager.ListEscalationPolicies", 2],
  ["which team owns the checkout service", "Pager.GetService", 2],
  ["who am I", "Pager.WhoAmI", 1],
  ["who am I", "Sheets.WhoAmI", 2],
  ["search for a user by name", "Pager.SearchUsers", 1],
  ["add a note to cell B2", "Sheets.AddNoteToCell", 1],
  ["find the spreadsheet called budget", "Sheets.SearchSpreadsheets", 1],
  ["create a new spreadsheet", "Sheets.CreateSpreadsheet", 1],
  ["write a value into a cell", "Sheets.WriteToCell", 1],
  ["read the cells of a spreadsheet", "Sheets.GetSpreadsheet", 1],
  ["suppress this email address", "MarketingApi.SuppressEmailAtEsp", 1],
  ["list segments", "MarketingApi.GetAllSegments", 1],
  ["how many people are in a segment", "MarketingApi.GetSegmentCustomerCount", 1],
  ["send a broadcast", "MarketingApi.TriggerBroadcastMessage", 1],
  ["send a transactional email", "MarketingApi.SendTransactionalEmail", 1],
  ["delete a segment", "MarketingApi.DeleteManualSegment", 1],
  ["export people to CSV", "MarketingApi.ExportCustomerData", 1],
  ["find a customer by email", "MarketingApi.GetPeopleByEmail", 1],
  ["list campaigns", "MarketingApi.GetCampaignList", 1],
];

/** The names of the best `limit` tools for `query`, best first. */
function topNames(search: ReturnType<typeof createToolSearch>, query: string, limit: number): string[] {
  return search.search(query, limit).map((entry) => entry.name);
}

describe("searching the real catalogue", () => {
  const dotted = createToolSearch(entries);
  const withUnderscores = createToolSearch(underscored);

  it("indexes all 138 tools", () => {
    expect(entries).toHaveLength(138);
  });

  it.each(requests)("finds %s → %s (within the top %i)", (query, tool, rank) => {
    expect(topNames(dotted, query, rank)).toContain(tool);
  });

  it.each(requests)("finds %s → %s under underscore names too", (query, tool, rank) => {
    expect(topNames(withUnderscores, query, rank)).toContain(tool.replace(".", "_"));
  });

  it("finds a tool first by its own name", () => {
    expect(topNames(dotted, "ListIncidents", 1)).toEqual(["Pager.ListIncidents"]);
    expect(topNames(dotted, "Pager.ListOnCalls", 1)).toEqual(["Pager.ListOnCalls"]);
  });

  it("still finds the tool when a word is misspelt", () => {
    expect(topNames(dotted, "supress email", 1)).toEqual(["MarketingApi.SuppressEmailAtEsp"]);
    expect(topNames(dotted, "escalaton policies", 2)).toContain("Pager.ListEscalationPolicies");
    expect(topNames(dotted, "spredsheet", 1)).toEqual(["Sheets.SearchSpreadsheets"]);
  });

  it("ranks the same whatever the order of the catalogue", () => {
    const shuffled = createToolSearch(
      [...entries].sort((a, b) => (a.description ?? "").length - (b.description ?? "").length),
    );
    for (const [query] of requests) {
      expect(shuffled.search(query, 5)).toEqual(dotted.search(query, 5));
    }
  });
});
