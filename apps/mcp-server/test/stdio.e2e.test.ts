import { spawn } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";
import { CLI, runCli } from "./spawn.js";

async function connect(args: string[]): Promise<Client> {
  const client = new Client({ name: "e2e", version: "0.0.0" });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [CLI, ...args], stderr: "pipe" }),
  );
  return client;
}

describe("toolkits-mcp over stdio", () => {
  it("answers initialize and tools/list from the built binary", async () => {
    const client = await connect(["--sandbox"]);
    expect(client.getServerVersion()?.name).toBe("toolkits-mcp");
    const { tools } = await client.listTools();
    expect(Array.isArray(tools)).toBe(true);
    for (const tool of tools) expect(tool.annotations?.title).toBe(tool.title);
    await client.close();
  });

  it("exits with 0 on SIGTERM once serving", async () => {
    const child = spawn(process.execPath, [CLI, "--sandbox"]);
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "e2e", version: "0" } },
    };
    child.stdin.write(`${JSON.stringify(initialize)}\n`);
    const answer = await new Promise<string>((resolve) =>
      child.stdout.once("data", (chunk) => resolve(String(chunk))),
    );
    expect(JSON.parse(answer).result.serverInfo.name).toBe("toolkits-mcp");
    child.kill("SIGTERM");
    expect(await new Promise((resolve) => child.on("close", resolve))).toBe(0);
  });

  it("exits with 0 when stdin closes, writing nothing but JSON-RPC to stdout", async () => {
    const { code, stdout } = await runCli(["--sandbox"]);
    expect(code).toBe(0);
    expect(stdout).toBe("");
  });

  it("answers the calls in flight when the client closes stdin right after sending them", async () => {
    const child = spawn(process.execPath, [CLI, "--sandbox", "--toolkits", "pager"]);
    let stdout = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    const messages = [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "e2e", version: "0" },
        },
      },
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "Pager.ListTeams", arguments: { limit: 2 } },
      },
    ];
    child.stdin.end(messages.map((message) => `${JSON.stringify(message)}\n`).join(""));
    expect(await new Promise((resolve) => child.on("close", resolve))).toBe(0);
    const answers = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const call = answers.find((answer) => answer.id === 2);
    expect(call.result.structuredContent.teams).toHaveLength(2);
  });

  it("prints help and version, and refuses a bad flag value naming what is allowed", async () => {
    expect((await runCli(["--help"])).stdout).toContain("--read-only");
    expect((await runCli(["--version"])).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    const bad = await runCli(["--transport", "carrier-pigeon"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('It must be one of stdio, http (got "carrier-pigeon")');
  });

  it("documents every command, option and environment variable in --help and help <command>", async () => {
    const help = await runCli(["help"]);
    expect(help.code).toBe(0);
    for (const text of [
      "login",
      "logout",
      "auth",
      "--tool-names",
      "--catalog",
      "MCP_TOOL_NAMES",
      "MCP_HTTP_BEARER_TOKENS",
      "MCP_OAUTH_ISSUER",
      "PAGER_ACCESS_TOKEN",
      "MARKETING_API_KEY",
    ]) {
      expect(help.stdout, text).toContain(text);
    }
    const login = await runCli(["help", "login"]);
    expect(login.code).toBe(0);
    expect(login.stdout).toContain("--no-browser");
    expect(login.stdout).toContain("--timeout <seconds>");
  });

  it("refuses at start-up a --tools glob that matches no tool", async () => {
    const run = await runCli(["--tools", "Pagr.*"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--tools: Pagr.* matches no tool of the loaded toolkits");
  });
});
