import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { CLI, runCli } from "./spawn.js";

/** Starts the built binary with `args` and an environment of only `env`, and lists its tools. */
async function listTools(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ tools: Tool[]; client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, ...args],
    env: { PATH: process.env.PATH ?? "", XDG_CONFIG_HOME: "/nonexistent-config", ...env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk) => (stderr += chunk));
  const client = new Client({ name: "filters-test", version: "0.0.0" });
  await client.connect(transport);
  const { tools } = await client.listTools();
  return { tools, client, stderr: () => stderr };
}

const names = (tools: Tool[]) => tools.map((tool) => tool.name);

describe("tool selection", () => {
  it("--read-only with every toolkit registers only read-only tools", async () => {
    const { tools, client } = await listTools(["--sandbox", "--read-only"]);
    await client.close();
    expect(tools.length).toBeGreaterThan(80);
    expect(tools.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true);
    for (const write of [
      "Sheets.CreateSpreadsheet",
      "Sheets.UpdateCells",
      "MarketingApi.SendTransactionalEmail",
      "MarketingApi.DeleteCollection",
    ]) {
      expect(names(tools)).not.toContain(write);
    }
    expect(names(tools)).toContain("Pager.ListIncidents");
  });

  it("--tools 'Pager.*' registers the 14 pager tools", async () => {
    const { tools, client } = await listTools(["--sandbox", "--tools", "Pager.*"]);
    await client.close();
    expect(tools).toHaveLength(14);
    expect(names(tools).every((name) => name.startsWith("Pager."))).toBe(true);
  });

  it("a marketing toolset registers only its area, and --exclude-tools wins", async () => {
    const { tools, client } = await listTools([
      "--sandbox",
      "--toolsets",
      "segments",
      "--exclude-tools",
      "MarketingApi.DeleteManualSegment",
    ]);
    await client.close();
    expect(names(tools).sort()).toEqual([
      "MarketingApi.CreateManualSegment",
      "MarketingApi.FindSegmentDependencies",
      "MarketingApi.GetAllSegments",
      "MarketingApi.GetSegmentCustomerCount",
      "MarketingApi.GetSegmentInfo",
      "MarketingApi.GetSegmentMembers",
    ]);
  });

  it("accepts function-style names (Pager_WhoAmI) and refuses unknown names and toolsets at start-up", async () => {
    const { tools, client } = await listTools(["--sandbox", "--tools", "Pager_WhoAmI,Sheets.WhoAmI"]);
    await client.close();
    expect(names(tools)).toEqual(["Pager.WhoAmI", "Sheets.WhoAmI"]);
    const unknown = await runCli(["--tools", "Pager.WhoAmY"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("--tools: no tool named Pager.WhoAmY");
    const badSet = await runCli(["--toolsets", "gossip"]);
    expect(badSet.code).toBe(2);
    expect(badSet.stderr).toContain("--toolsets: no toolset gossip. Available:");
  });
});

describe("a toolkit without credentials", () => {
  it("still starts, warns once on stderr, and answers unauthenticated with how to configure it", async () => {
    const { tools, client, stderr } = await listTools(["--toolkits", "pager,marketing"]);
    expect(names(tools)).toContain("Pager.WhoAmI");
    const result = await client.callTool({ name: "MarketingApi.ListBroadcasts", arguments: {} });
    await client.close();
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0]?.text).toContain(
      "unauthenticated: The secret MARKETING_API_KEY is not configured. Set the MARKETING_API_KEY environment variable",
    );
    const warnings = stderr()
      .split("\n")
      .filter((line) => line.includes("are not configured"));
    expect(warnings).toHaveLength(2);
    expect(warnings.some((line) => line.includes("Marketing tools"))).toBe(true);
  });
});
