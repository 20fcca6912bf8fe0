import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectHttp, connectStdio, type ListedTool, type TestClient } from "./clients.js";
import { type RunningServer, startHttpServer } from "./spawn.js";

/** What a model is shown of a tool: its name, description and input schema. */
const shownBytes = (tools: ListedTool[]) =>
  tools.reduce(
    (sum, { name, description, inputSchema }) =>
      sum + Buffer.byteLength(JSON.stringify({ name, description, inputSchema })),
    0,
  );

/** Plain-language requests across the three toolkits and the tool each must find first. */
const REQUESTS: [query: string, tool: string][] = [
  ["who is on call for payments", "Pager_ListOnCalls"],
  ["what happened on incident 123", "Pager_ListLogEntries"],
  ["get the incident details", "Pager_GetIncident"],
  ["search for a user by name", "Pager_SearchUsers"],
  ["add a note to cell B2", "Sheets_AddNoteToCell"],
  ["find the spreadsheet called budget", "Sheets_SearchSpreadsheets"],
  ["create a new spreadsheet", "Sheets_CreateSpreadsheet"],
  ["write a value into a cell", "Sheets_WriteToCell"],
  ["suppress this email address", "MarketingApi_SuppressEmailAtEsp"],
  ["list segments", "MarketingApi_GetAllSegments"],
  ["send a broadcast", "MarketingApi_TriggerBroadcastMessage"],
  ["export people to CSV", "MarketingApi_ExportCustomerData"],
  ["find a customer by email", "MarketingApi_GetPeopleByEmail"],
];

describe("--catalog search", () => {
  let client: TestClient;
  let full: TestClient;
  beforeAll(async () => {
    [client, full] = await Promise.all([
      connectStdio("v2", ["--sandbox", "--catalog", "search"]),
      connectStdio("v2", ["--sandbox"]),
    ]);
  });
  afterAll(async () => {
    await client?.close();
    await full?.close();
  });

  it("lists search_tools and call_tool in under 6,000 bytes of catalogue", async () => {
    const tools = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["search_tools", "call_tool"]);
    expect(tools.length).toBeLessThanOrEqual(5);
    expect(shownBytes(tools)).toBeLessThanOrEqual(6_000);
    // Any of the 138 tools may write or delete, so call_tool claims no safety it lacks.
    expect(tools[1]?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });

  it.each(REQUESTS)("finds the tool for %j first", async (query, tool) => {
    const found = await client.call("search_tools", { query, limit: 3 });
    expect(found.isError, found.text).toBe(false);
    const tools = (found.data as { tools: ListedTool[] }).tools;
    expect(tools[0]?.name).toBe(tool);
    expect(tools[0]?.inputSchema).toMatchObject({ type: "object" });
    expect(found.text).not.toMatch(/\b(Pager|Sheets|MarketingApi)\.[A-Z]/);
  });

  it("reaches every tool through call_tool, answering exactly as a direct call", async () => {
    const listed = await full.listTools();
    expect(listed).toHaveLength(138);
    for (const { name } of listed) {
      // Empty arguments: most tools refuse their missing parameters, the rest answer. A tool that
      // creates something (a spreadsheet with a default title) answers with a new id each time.
      const direct = await full.call(name, {});
      const through = await client.call("call_tool", { name, arguments: {} });
      expect(through.isError, name).toBe(direct.isError);
      if (direct.isError) expect(through.text, name).toBe(direct.text);
      else expect(Object.keys(through.data ?? {}), name).toEqual(Object.keys(direct.data ?? {}));
    }
  });

  it("refuses a bad argument through call_tool exactly as a direct call does", async () => {
    const args = { limit: 500, statuses: ["burning"] };
    const direct = await full.call("Pager_ListIncidents", args);
    const through = await client.call("call_tool", { name: "Pager_ListIncidents", arguments: args });
    expect(direct.isError).toBe(true);
    expect(through).toEqual(direct);
  });
});

describe("--catalog search with filters, over HTTP with the v1 client", () => {
  let server: RunningServer;
  let client: TestClient;
  beforeAll(async () => {
    server = await startHttpServer([
      "--sandbox",
      "--catalog",
      "search",
      "--toolkits",
      "pager,sheets",
      "--read-only",
    ]);
    client = await connectHttp("v1", server.url);
  });
  afterAll(async () => {
    await client?.close();
    await server?.stop();
  });

  it("searches and runs only the selected tools, and call_tool is read-only when they all are", async () => {
    const [, callTool] = await client.listTools();
    expect(callTool?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    const found = await client.call("search_tools", { query: "create a new spreadsheet", limit: 20 });
    const names = (found.data as { tools: ListedTool[] }).tools.map((tool) => tool.name);
    expect(names.length).toBeGreaterThan(0);
    expect(names).not.toContain("Sheets_CreateSpreadsheet");
    expect(names.some((name) => name.startsWith("MarketingApi_"))).toBe(false);
    const refused = await client.call("call_tool", {
      name: "Sheets_CreateSpreadsheet",
      arguments: { title: "x" },
    });
    expect(refused).toMatchObject({ isError: true });
    expect(refused.text).toBe(
      "invalid_input: Tool Sheets_CreateSpreadsheet does not exist on this server. Call search_tools to find one.",
    );
    const ran = await client.call("call_tool", { name: "Sheets.WhoAmI" });
    expect(ran.isError, ran.text).toBe(false);
  });
});
