import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { LEAKCHECK } from "@toolkits/core/testing";
import { sandbox } from "@toolkits/pager/sandbox";
import { afterEach, describe, expect, it } from "vitest";
import { CLI } from "./spawn.js";

// Faults end to end: the built binary over stdio against a stand-in PagerDuty on a local port
// that resets connections, hangs, sends an HTML page or a 10 MB body. The server process must
// survive each and answer the next call normally.

type Mode = "ok" | "reset" | "hang" | "html" | "huge";

/** A local PagerDuty whose behaviour the test switches; counts the requests it sees. */
async function faultyUpstream() {
  const incidents = sandbox().account.incidents.slice(0, 10);
  const state = { mode: "ok" as Mode, requests: 0 };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    state.requests++;
    if (state.mode === "reset") return void request.socket.resetAndDestroy();
    if (state.mode === "hang") return;
    if (state.mode === "html") {
      response.writeHead(502, { "content-type": "text/html" });
      return void response.end("<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>");
    }
    const title = state.mode === "huge" ? "x".repeat(1_000_000) : undefined;
    const body = {
      incidents: incidents.map((incident) => ({ ...incident, title: title ?? incident.title })),
      limit: 10,
      offset: 0,
      more: false,
    };
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function start() {
  const upstream = await faultyUpstream();
  closers.push(upstream.close);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "--toolkits", "pager"],
    env: {
      PATH: process.env.PATH ?? "",
      PAGER_API_URL: upstream.url,
      PAGER_ACCESS_TOKEN: LEAKCHECK.pagerToken,
    },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk) => (stderr += chunk));
  const client = new Client({ name: "faults-e2e", version: "0.0.0" });
  await client.connect(transport);
  closers.push(() => client.close());
  const call = async (options: { signal?: AbortSignal } = {}) => {
    const result = (await client.callTool(
      { name: "Pager.ListIncidents", arguments: { limit: 10 } },
      undefined,
      options,
    )) as CallToolResult;
    const first = result.content[0];
    return { isError: result.isError === true, text: first?.type === "text" ? first.text : "" };
  };
  /** The process is still running and answers a normal call. */
  const keepsAnswering = async () => {
    upstream.state.mode = "ok";
    expect(transport.pid).toBeGreaterThan(0);
    const result = await call();
    expect(result.isError, result.text).toBe(false);
    expect(JSON.parse(result.text).incidents).toHaveLength(10);
  };
  return { upstream, call, keepsAnswering, stderr: () => stderr };
}

describe("the built server against a faulty upstream", () => {
  it("survives connection resets, retrying the read, and answers the next call", async () => {
    const { upstream, call, keepsAnswering, stderr } = await start();
    upstream.state.mode = "reset";
    const result = await call();
    expect(result.text).toMatch(/^upstream_unavailable: GET \/incidents could not reach the upstream/);
    expect(upstream.state.requests).toBe(4);
    await keepsAnswering();
    expect(stderr()).not.toContain(LEAKCHECK.pagerToken);
  });

  it("survives an HTML error page and a 10 MB body, capping the result", async () => {
    const { upstream, call, keepsAnswering } = await start();
    upstream.state.mode = "html";
    expect((await call()).text).toMatch(
      /^upstream_unavailable: GET \/incidents failed with HTTP 502: 502 Bad Gateway/,
    );
    upstream.state.mode = "huge";
    const huge = await call();
    expect(huge.isError, huge.text.slice(0, 200)).toBe(false);
    expect(Buffer.byteLength(huge.text)).toBeLessThanOrEqual(100_000);
    expect(JSON.parse(huge.text)).toMatchObject({ truncated: true });
    await keepsAnswering();
  });

  it("survives a hung upstream the client gives up on, and answers the next call", async () => {
    const { upstream, call, keepsAnswering } = await start();
    upstream.state.mode = "hang";
    const cancel = new AbortController();
    const pending = call({ signal: cancel.signal });
    while (upstream.state.requests === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    cancel.abort("gave up waiting");
    await expect(pending).rejects.toThrow(/gave up waiting/);
    await keepsAnswering();
  });
});
