import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, describe, expect, it } from "vitest";
import { jsonRpcAnswer } from "./clients.js";
import { CLI, startHttpServer } from "./spawn.js";

/** A stand-in PagerDuty whose answers wait for the test; records each request's fate. */
async function slowUpstream(delayMs: number) {
  const events: string[] = [];
  let arrived: () => void = () => {};
  const requestArrived = new Promise<void>((resolve) => (arrived = resolve));
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    events.push(`request ${req.url}`);
    arrived();
    const timer = setTimeout(() => {
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({
          incident: { id: "P1", incident_number: 1, title: "Slow", status: "triggered", urgency: "high" },
        }),
      );
      events.push("answered");
    }, delayMs);
    res.on("close", () => {
      clearTimeout(timer);
      if (!res.writableFinished) events.push("aborted by the caller");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, events, requestArrived, close: () => server.close() };
}

const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe("cancellation", () => {
  it("aborts the upstream request when the client cancels the tool call", async () => {
    const upstream = await slowUpstream(30_000);
    closers.push(upstream.close);
    const client = new Client({ name: "cancel-test", version: "0.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, "--toolkits", "pager"],
        env: {
          PATH: process.env.PATH ?? "",
          PAGER_API_URL: upstream.url,
          PAGER_ACCESS_TOKEN: "token-for-cancel-test",
        },
      }),
    );
    closers.push(() => client.close());
    const controller = new AbortController();
    const call = client.callTool({ name: "Pager.GetIncident", arguments: { incident_id: "P1" } }, undefined, {
      signal: controller.signal,
    });
    await upstream.requestArrived;
    controller.abort("user pressed stop");
    await expect(call).rejects.toThrow();
    await expect.poll(() => upstream.events, { timeout: 5_000 }).toContain("aborted by the caller");
    expect(upstream.events).not.toContain("answered");
  });
});

describe("graceful shutdown over HTTP", () => {
  it("finishes an in-flight call after SIGTERM, then exits with 0", async () => {
    const upstream = await slowUpstream(800);
    closers.push(upstream.close);
    const server = await startHttpServer(["--toolkits", "pager"], {
      PAGER_API_URL: upstream.url,
      PAGER_ACCESS_TOKEN: "token-for-shutdown-test",
    });
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "Pager.GetIncident", arguments: { incident_id: "P1" } },
    });
    const pending = fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body,
    });
    await upstream.requestArrived;
    const exited = server.stop();
    const response = await pending;
    expect(response.status).toBe(200);
    const answer = (await jsonRpcAnswer(response)) as {
      result: { isError?: boolean; structuredContent: { incident: { id: string } } };
    };
    expect(answer.result.isError).toBeFalsy();
    expect(answer.result.structuredContent.incident.id).toBe("P1");
    expect(await exited).toBe(0);
    await expect(fetch(new URL("/healthz", server.url))).rejects.toThrow();
  });
});
