import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startHttpServer } from "./spawn.js";

let server: RunningServer;
beforeAll(async () => {
  server = await startHttpServer(["--sandbox"]);
});
afterAll(() => server?.stop());

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** A raw POST (fetch will not send a custom Host or Origin); resolves with status and JSON body. */
function post(
  headers: Record<string, string>,
  message: Record<string, unknown>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const target = new URL(server.url);
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
      },
      (res) => {
        let text = "";
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: parseAnswer(text) }));
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify({ jsonrpc: "2.0", id: 7, ...message }));
  });
}

/** The JSON-RPC message in a body sent as JSON or as one server-sent event. */
const parseAnswer = (text: string): Record<string, unknown> =>
  JSON.parse(text.startsWith("event:") ? (/^data: (.*)$/m.exec(text)?.[1] ?? "{}") : text || "{}");

const modern = (method: string, name?: string) => ({
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": method,
  ...(name ? { "mcp-name": name } : {}),
});

describe("HTTP on the 2026-07-28 revision", () => {
  it("gives the tool list a cache lifetime for the asking client alone, as it differs by client (MCP Apps; public with --apps off: test/apps)", async () => {
    const { status, body } = await post(modern("tools/list"), {
      method: "tools/list",
      params: { _meta: META },
    });
    expect(status).toBe(200);
    expect(body.result).toMatchObject({ ttlMs: 3_600_000, cacheScope: "private" });
  });

  it("refuses a request whose Mcp-Method or Mcp-Name header disagrees with its body", async () => {
    const wrongMethod = await post(modern("prompts/list"), { method: "tools/list", params: { _meta: META } });
    expect(wrongMethod.status).toBe(400);
    expect(wrongMethod.body.error).toMatchObject({ code: -32020 });
    const call = { method: "tools/call", params: { name: "Pager_WhoAmI", arguments: {}, _meta: META } };
    const wrongName = await post(modern("tools/call", "Pager_ListIncidents"), call);
    expect(wrongName.status).toBe(400);
    expect((await post(modern("tools/call", "Pager_WhoAmI"), call)).status).toBe(200);
  });

  it("checks the Mcp-Param header a spreadsheet id is mirrored into (SEP-2243)", async () => {
    const call = (spreadsheet_id: string) => ({
      method: "tools/call",
      params: { name: "Sheets_GetSpreadsheetMetadata", arguments: { spreadsheet_id }, _meta: META },
    });
    const headers = modern("tools/call", "Sheets_GetSpreadsheetMetadata");
    const missing = await post(headers, call("quarterly-report-0"));
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: -32020 });
    const differing = await post(
      { ...headers, "mcp-param-spreadsheet-id": "other" },
      call("quarterly-report-0"),
    );
    expect(differing.status).toBe(400);
    const agreeing = await post(
      { ...headers, "mcp-param-spreadsheet-id": "quarterly-report-0" },
      call("quarterly-report-0"),
    );
    expect(agreeing.status).toBe(200);
    expect(agreeing.body.result).toMatchObject({
      structuredContent: { spreadsheet_id: "quarterly-report-0" },
    });
  });
});

describe("HTTP on the 2025 revisions", () => {
  it("answers a plain tool call as JSON, and one asking for progress as an event stream, with the same result", async () => {
    const call = (meta: Record<string, unknown> | undefined) => ({
      method: "tools/call",
      params: {
        name: "Pager_GetIncident",
        arguments: { incident_id: "PNOSUCH" },
        ...(meta ? { _meta: meta } : {}),
      },
    });
    const plain = await post({ "mcp-protocol-version": "2025-11-25" }, call(undefined));
    const streamed = await post({ "mcp-protocol-version": "2025-11-25" }, call({ progressToken: 1 }));
    expect(plain.status).toBe(200);
    expect(plain.body).toEqual({ jsonrpc: "2.0", id: 7, result: expect.objectContaining({ isError: true }) });
    expect(streamed.body).toEqual(plain.body);
  });
});

describe("Host and Origin on a loopback bind", () => {
  const list = { method: "tools/list", params: {} };

  it("accepts browser origins on any loopback name and port", async () => {
    for (const origin of ["http://localhost:5173", "http://127.0.0.1:8080", "http://[::1]:3000"]) {
      expect((await post({ origin }, list)).status, origin).toBe(200);
    }
  });

  it("refuses other origins, foreign hosts and hosts with user info", async () => {
    expect((await post({ origin: "http://localhost.evil.example" }, list)).status).toBe(403);
    expect((await post({ origin: "null" }, list)).status).toBe(403);
    expect((await post({ host: "evil.example" }, list)).status).toBe(403);
    expect((await post({ host: "evil.example@127.0.0.1" }, list)).status).toBe(403);
  });
});
