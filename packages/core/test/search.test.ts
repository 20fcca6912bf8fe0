import { describe, expect, it } from "vitest";
import { createToolSearch, type SearchableTool } from "../src/mcp/search.js";

/** A tool entry with parameters given as `name: description` (an empty description leaves it out). */
function tool(name: string, title: string, description: string, parameters: Record<string, string> = {}) {
  const properties = Object.fromEntries(
    Object.entries(parameters).map(([key, text]) => [key, text ? { type: "string", description: text } : {}]),
  );
  return { name, title, description, inputSchema: { type: "object", properties } };
}

const catalogue = [
  tool("Demo.ListOnCalls", "List on-calls", "Lists who is on duty now, per schedule.", {
    since: "Window start",
  }),
  tool(
    "Demo.ListSchedules",
    "List schedules",
    "Lists rotations. To see who works now, use Demo.ListOnCalls.",
  ),
  tool("Demo.ListIncidents", "List incidents", "Lists problems, newest first.", { status: "" }),
  tool("Demo.GetIncident", "Get incident", "Gets one problem.", { incident_id: "From the incident list" }),
  tool("Demo.ListPolicies", "List policies", "Lists escalation rules."),
  tool("Demo.AddNoteToCell", "Add note to cell", "Sets the note on one cell.", { note_text: "The note" }),
  tool("Demo.WriteToCell", "Write to cell", "Writes one value.", { row: "Row number, 1-based" }),
  tool("Demo.ArchiveReport", "Archive report", "Moves a report away.", {
    retention_days: "How long to keep it",
  }),
  tool("Mail.SendMessage", "Send message", "Sends a message about an incident to a person."),
];

const names = (tools: readonly SearchableTool[]) => tools.map((entry) => entry.name);

describe("createToolSearch", () => {
  const { search } = createToolSearch(catalogue);

  it("returns the entries passed in, best first", () => {
    const [best] = search("add a note to a cell", 3);
    expect(best).toBe(catalogue[5]);
  });

  it("ranks a match in the name or title above one in the description", () => {
    expect(names(search("incident", 3))).toEqual([
      "Demo.GetIncident",
      "Demo.ListIncidents",
      "Mail.SendMessage",
    ]);
  });

  it("splits CamelCase names, so plain words find them", () => {
    expect(names(search("who is on call", 1))).toEqual(["Demo.ListOnCalls"]);
    expect(names(search("ListIncidents", 1))).toEqual(["Demo.ListIncidents"]);
  });

  it("splits underscore names the same way as dotted ones", () => {
    const underscored = catalogue.map((entry) => ({ ...entry, name: entry.name.replace(".", "_") }));
    const results = createToolSearch(underscored).search("who is on call", 3);
    expect(names(results)).toEqual(names(search("who is on call", 3)).map((name) => name.replace(".", "_")));
  });

  it("finds a tool by a snake_case parameter name and by a parameter's description", () => {
    expect(names(search("retention", 1))).toEqual(["Demo.ArchiveReport"]);
    expect(names(search("how long to keep", 1))).toEqual(["Demo.ArchiveReport"]);
  });

  it("does not match a tool on another tool's name mentioned in its description", () => {
    expect(names(search("on calls", 5))).not.toContain("Demo.ListSchedules");
  });

  it("matches singular and plural forms", () => {
    expect(names(search("policy", 1))).toEqual(["Demo.ListPolicies"]);
    expect(names(search("schedule", 1))).toEqual(["Demo.ListSchedules"]);
  });

  it("tolerates small typos", () => {
    expect(names(search("incidnet", 2))).toEqual(["Demo.GetIncident", "Demo.ListIncidents"]);
    expect(names(search("schedles", 1))).toEqual(["Demo.ListSchedules"]);
    expect(names(search("retent", 1))).toEqual(["Demo.ArchiveReport"]);
  });

  it("returns at most `limit` entries", () => {
    expect(search("list", 2)).toHaveLength(2);
    expect(search("list", 20)).toHaveLength(5);
    expect(search("list", 0)).toEqual([]);
  });

  it("returns nothing for an empty, blank or stop-word-only query, or one nothing matches", () => {
    expect(search("", 5)).toEqual([]);
    expect(search("   \t", 5)).toEqual([]);
    expect(search("the of", 5)).toEqual([]);
    expect(search("zebra", 5)).toEqual([]);
  });

  it("gives the same results whatever the order of the entries", () => {
    const reversed = createToolSearch([...catalogue].reverse());
    for (const query of ["incident", "list", "cell", "who is on call", "send a message"]) {
      expect(names(reversed.search(query, 10))).toEqual(names(search(query, 10)));
    }
  });

  it("breaks ties by name", () => {
    const twins = [tool("B.Twin", "Twin", "Same text."), tool("A.Twin", "Twin", "Same text.")];
    expect(names(createToolSearch(twins).search("twin", 2))).toEqual(["A.Twin", "B.Twin"]);
  });
});
