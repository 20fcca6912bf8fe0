import { describe, expect, it } from "vitest";
import { connectStdio, GENERATIONS, type ListedTool } from "./clients.js";
import { runCli } from "./spawn.js";

const names = (tools: ListedTool[]) => tools.map((tool) => tool.name);

describe.each(GENERATIONS)("tool selection, SDK %s client", (generation) => {
  async function listTools(args: string[]): Promise<ListedTool[]> {
    const client = await connectStdio(generation, args);
    try {
      return await client.listTools();
    } finally {
      await client.close();
    }
  }

  it("--read-only with every toolkit registers only read-only tools", async () => {
    const tools = await listTools(["--sandbox", "--read-only"]);
    expect(tools.length).toBeGreaterThan(80);
    expect(tools.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true);
    for (const write of [
      "Sheets_CreateSpreadsheet",
      "Sheets_UpdateCells",
      "MarketingApi_SendTransactionalEmail",
      "MarketingApi_DeleteCollection",
    ]) {
      expect(names(tools)).not.toContain(write);
    }
    expect(names(tools)).toContain("Pager_ListIncidents");
  });

  it("--tools 'Pager.*' and 'Pager_*' register the 14 pager tools", async () => {
    for (const glob of ["Pager.*", "Pager_*"]) {
      const tools = await listTools(["--sandbox", "--tools", glob]);
      expect(tools).toHaveLength(14);
      expect(names(tools).every((name) => name.startsWith("Pager_"))).toBe(true);
    }
  });

  it("a marketing toolset registers only its area, and --exclude-tools wins in either name form", async () => {
    for (const excluded of ["MarketingApi.DeleteManualSegment", "MarketingApi_DeleteManualSegment"]) {
      const tools = await listTools(["--sandbox", "--toolsets", "segments", "--exclude-tools", excluded]);
      expect(names(tools).sort()).toEqual([
        "MarketingApi_CreateManualSegment",
        "MarketingApi_FindSegmentDependencies",
        "MarketingApi_GetAllSegments",
        "MarketingApi_GetSegmentCustomerCount",
        "MarketingApi_GetSegmentInfo",
        "MarketingApi_GetSegmentMembers",
      ]);
    }
  });

  it("accepts names in either form, serves the dotted form on request, and refuses unknown names at start-up", async () => {
    expect(names(await listTools(["--sandbox", "--tools", "Pager_WhoAmI,Sheets.WhoAmI"]))).toEqual([
      "Pager_WhoAmI",
      "Sheets_WhoAmI",
    ]);
    const dotted = await listTools([
      "--sandbox",
      "--tool-names",
      "dotted",
      "--tools",
      "Pager_WhoAmI,Sheets.WhoAmI",
    ]);
    expect(names(dotted)).toEqual(["Pager.WhoAmI", "Sheets.WhoAmI"]);
  });
});

describe("start-up refusals", () => {
  it("refuses unknown tool names, toolsets, toolkits and name forms, naming what is allowed", async () => {
    const unknown = await runCli(["--tools", "Pager.WhoAmY"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("--tools: no tool named Pager.WhoAmY");
    const badSet = await runCli(["--toolsets", "gossip"]);
    expect(badSet.code).toBe(2);
    expect(badSet.stderr).toContain("--toolsets: no toolset gossip. Available:");
    const badKit = await runCli(["--toolkits", "pager,pagr"]);
    expect(badKit.code).toBe(2);
    expect(badKit.stderr).toContain('It must be one of pager, sheets, marketing (got "pagr")');
    const badForm = await runCli(["--tool-names", "kebab"]);
    expect(badForm.code).toBe(2);
    expect(badForm.stderr).toContain('It must be one of underscore, dotted (got "kebab")');
  });

  it("refuses a malformed variable the same way when started without arguments, as MCP clients start it", async () => {
    const badPort = await runCli([], { MCP_PORT: "abc" });
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toContain(
      "option '--port <port>' value 'abc' from env 'MCP_PORT' is invalid. It must be an integer from 0 to 65535",
    );
    expect(badPort.stderr).toContain("Run toolkits-mcp --help for every option, variable and command.");
    const badKit = await runCli([], { MCP_TOOLKITS: "pagr" });
    expect(badKit.code).toBe(2);
    expect(badKit.stderr).toContain("from env 'MCP_TOOLKITS' is invalid");
    expect(badKit.stdout).toBe("");
  });
});

describe("a toolkit without credentials", () => {
  it("still starts, warns once on stderr, and answers unauthenticated with how to configure it", async () => {
    const client = await connectStdio("v2", ["--toolkits", "pager,marketing"]);
    expect(names(await client.listTools())).toContain("Pager_WhoAmI");
    const result = await client.call("MarketingApi_ListBroadcasts");
    await client.close();
    expect(result.isError).toBe(true);
    expect(result.text).toContain(
      "unauthenticated: The secret MARKETING_API_KEY is not configured. Set the MARKETING_API_KEY environment variable for the server and restart it.",
    );
    const warnings = client
      .stderr()
      .split("\n")
      .filter((line) => line.includes("are not configured"));
    expect(warnings).toHaveLength(2);
    expect(warnings.some((line) => line.includes("Marketing tools"))).toBe(true);
  });
});
