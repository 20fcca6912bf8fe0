import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** Calls the demo makes, in order; a call whose tool is not registered is skipped. */
const CALLS: { tool: string; args: Record<string, unknown>; why: string }[] = [];

const MAX_SHOWN = 600;

/**
 * A scripted agent session against `toolkits-mcp --sandbox`: what an agent sees when it lists the
 * tools and calls a few of them, including an error.
 */
async function main(): Promise<void> {
  const client = new Client({ name: "demo-agent", version: "1.0.0" });
  const cli = fileURLToPath(new URL("./cli.js", import.meta.url));
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [cli, "--sandbox"] }));
  const { tools } = await client.listTools();
  const counts = new Map<string, number>();
  for (const tool of tools) {
    const prefix = tool.name.split(".")[0] ?? "";
    counts.set(prefix, (counts.get(prefix) ?? 0) + 1);
  }
  print(`# toolkits-mcp --sandbox: ${tools.length} tools`);
  for (const [prefix, count] of counts) print(`  ${prefix}.*: ${count} tools`);
  const names = new Set(tools.map((tool) => tool.name));
  for (const call of CALLS.filter(({ tool }) => names.has(tool))) {
    print(`\n> ${call.tool} ${JSON.stringify(call.args)}   (${call.why})`);
    const result = (await client.callTool({ name: call.tool, arguments: call.args })) as CallToolResult;
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
