import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

/** Calls the demo makes (names as the server serves them), in order; a call whose tool is not registered is skipped. */
const CALLS: { tool: string; args: Record<string, unknown>; why: string }[] = [
  { tool: "Pager_WhoAmI", args: {}, why: "who am I, and am I on call?" },
  {
    tool: "Pager_ListIncidents",
    args: { status: "triggered", urgency: "high", limit: 2 },
    why: "what is burning",
  },
  {
    tool: "Pager_SearchUsers",
    args: { query: "jordan costa", auto_accept_matches: true },
    why: "fuzzy name search",
  },
  { tool: "Pager_ListIncidents", args: { limit: 500 }, why: "an error: limit out of range" },
  { tool: "Pager_GetIncident", args: { incident_id: "PNOSUCH" }, why: "an error: unknown id" },
  {
    tool: "Sheets_SearchSpreadsheets",
    args: { spreadsheet_contains: ["report"], limit: 2 },
    why: "find a spreadsheet",
  },
  {
    tool: "Sheets_GetSpreadsheet",
    args: { spreadsheet_id: "quarterly-report-0", max_rows: 3, max_cols: 3 },
    why: "read a window of cells",
  },
  { tool: "MarketingApi_GetAllSegments", args: {}, why: "list segments" },
  {
    tool: "MarketingApi_CreateManualSegment",
    args: { mode: "get_request_schema" },
    why: "a two-mode tool: ask for the body's schema first",
  },
  {
    tool: "MarketingApi_CreateManualSegment",
    args: { mode: "execute", request_body: JSON.stringify({ segment: { name: 42 } }) },
    why: "an error: the body breaks the schema, so nothing is sent",
  },
];

const MAX_SHOWN = 600;

/**
 * A scripted agent session against `toolkits-mcp --sandbox`: what an agent sees when it lists the
 * tools and calls a few of them, including an error.
 */
async function main(): Promise<void> {
  const client = new Client(
    { name: "demo-agent", version: "1.0.0" },
    { versionNegotiation: { mode: "auto" } },
  );
  const cli = fileURLToPath(new URL("./cli.js", import.meta.url));
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [cli, "--sandbox"] }));
  const { tools } = await client.listTools();
  const counts = new Map<string, number>();
  for (const tool of tools) {
    const prefix = tool.name.split("_")[0] ?? "";
    counts.set(prefix, (counts.get(prefix) ?? 0) + 1);
  }
  print(`# toolkits-mcp --sandbox: ${tools.length} tools (MCP ${client.getNegotiatedProtocolVersion()})`);
  for (const [prefix, count] of counts) print(`  ${prefix}_*: ${count} tools`);
  const names = new Set(tools.map((tool) => tool.name));
  for (const call of CALLS.filter(({ tool }) => names.has(tool))) {
    print(`\n> ${call.tool} ${JSON.stringify(call.args)}   (${call.why})`);
    const result = await client.callTool({ name: call.tool, arguments: call.args });
    const text = result.content
      .map((part) => (part.type === "text" ? part.text : `[${part.type}]`))
      .join("\n");
    print(
      `${result.isError ? "isError " : ""}${text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text}`,
    );
  }
  await client.close();
}

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
