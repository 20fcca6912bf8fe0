import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { CLI, startHttpServer } from "./spawn.js";

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function pickerUrl(client: Client): Promise<string> {
  const result = await client.callTool({ name: "Sheets.GenerateFilePickerUrl", arguments: {} });
  expect(result.isError).toBeFalsy();
  return (result.structuredContent as { url: string }).url;
}

describe("the sheets file picker page", () => {
  it("is served on a loopback port under stdio", async () => {
    const client = new Client({ name: "pages-test", version: "0.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, "--sandbox", "--toolkits", "sheets"],
      }),
    );
    closers.push(() => client.close());
    const url = await pickerUrl(client);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sheets\/picker\/[\w-]+$/);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(await page.text()).toContain("google.picker");
  });

  it("is served by the HTTP server outside bearer authentication, and accepts the pick from its own origin", async () => {
    const server = await startHttpServer(["--sandbox", "--toolkits", "sheets"], {
      MCP_HTTP_BEARER_TOKENS: "pages-token",
    });
    closers.push(() => server.stop());
    const client = new Client({ name: "pages-test", version: "0.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { authorization: "Bearer pages-token" } },
      }),
    );
    closers.push(() => client.close());
    const url = await pickerUrl(client);
    expect(url.startsWith(new URL(server.url).origin)).toBe(true);
    expect((await fetch(url)).status).toBe(200);
    const picked = await fetch(`${url}/picked`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ files: [{ id: "sheet-1", name: "Budget" }] }),
    });
    expect(picked.status).toBe(200);
    expect(((await picked.json()) as { files: { id: string }[] }).files[0]?.id).toBe("sheet-1");
  });
});
