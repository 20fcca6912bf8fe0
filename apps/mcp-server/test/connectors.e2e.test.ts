// Connector URLs (/mcp/<selection>) against the built server, with both SDK generations' clients:
// each URL lists exactly its selection, refuses calls outside it, and never widens the server's
// own --read-only or --toolkits.
import type { AnyToolDefinition } from "@toolkits/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOOLKITS, toolsetOf } from "../src/toolkits.js";
import { connectHttp, modernToolsList, type TestClient } from "./clients.js";
import { type RunningServer, startHttpServer } from "./spawn.js";

const served = (tool: AnyToolDefinition) => tool.name.replace(".", "_");
const namesOf = (tools: readonly AnyToolDefinition[]) => tools.map(served).sort();
const PAGER = TOOLKITS.pager?.tools ?? [];
const MARKETING = TOOLKITS.marketing;
const SEGMENTS = MARKETING ? MARKETING.tools.filter((tool) => toolsetOf(tool, MARKETING) === "segments") : [];
const NOT_HERE = /invalid_input: Tool \S+ does not exist on this server/;

async function listed(client: TestClient): Promise<string[]> {
  return (await client.listTools()).map((tool) => tool.name).sort();
}

describe("connector URLs on a server serving everything", () => {
  let server: RunningServer;
  /** The server's base URL, without /mcp. */
  let base: string;
  beforeAll(async () => {
    server = await startHttpServer(["--sandbox"]);
    base = server.url.replace(/\/mcp$/, "");
  });
  afterAll(() => server?.stop());

  it("/mcp/pager/readonly: the v2 client on 2026-07-28 lists exactly PagerDuty's read-only tools and calls only them", async () => {
    const client = await connectHttp("v2", `${base}/mcp/pager/readonly`);
    try {
      expect(client.protocolVersion()).toBe("2026-07-28");
      expect(await listed(client)).toEqual(namesOf(PAGER.filter((tool) => tool.hints.readOnly)));
      const inside = await client.call("Pager_ListIncidents");
      expect(inside.isError, inside.text).toBe(false);
      const outside = await client.call("Sheets_WhoAmI");
      expect(outside.isError).toBe(true);
      expect(outside.text).toMatch(NOT_HERE);
    } finally {
      await client.close();
    }
  });

  it("/mcp/marketing:segments: the v1 client on 2025-11-25 lists exactly the segment tools and calls only them", async () => {
    const client = await connectHttp("v1", `${base}/mcp/marketing:segments`);
    try {
      expect(client.protocolVersion()).toBe("2025-11-25");
      expect(await listed(client)).toEqual(namesOf(SEGMENTS));
      expect((await client.call("MarketingApi_GetAllSegments")).isError).toBe(false);
      for (const name of ["MarketingApi_ListBroadcasts", "Pager_WhoAmI"]) {
        const outside = await client.call(name);
        expect(outside.isError, name).toBe(true);
        expect(outside.text).toMatch(NOT_HERE);
      }
    } finally {
      await client.close();
    }
  });

  it("/mcp/search: both clients list the search catalogue, whose search finds every tool", async () => {
    for (const generation of ["v1", "v2"] as const) {
      const client = await connectHttp(generation, `${base}/mcp/search`);
      try {
        expect(await listed(client)).toEqual(["call_tool", "search_tools"]);
        const found = await client.call("search_tools", { query: "list the segments of people", limit: 5 });
        expect(JSON.stringify(found.data)).toContain("MarketingApi_GetAllSegments");
        const called = await client.call("call_tool", { name: "Pager_WhoAmI", arguments: {} });
        expect(called.isError, called.text).toBe(false);
      } finally {
        await client.close();
      }
    }
  });

  it("gives each connector URL's tool list its own cache lifetime, private while lists differ by client, on 2026-07-28", async () => {
    const result = (await modernToolsList(`${base}/mcp/pager`)) as { tools: { name: string }[] };
    // Private: with MCP Apps on (the default) the list also differs by client.
    expect(result).toMatchObject({ ttlMs: 3_600_000, cacheScope: "private" });
    expect(result.tools.map((tool) => tool.name).sort()).toEqual(namesOf(PAGER));
  });

  it("answers an unknown element 404 with what the server serves instead", async () => {
    const cases = {
      "/mcp/jira": "This server serves no toolkit “jira”; it serves pager, sheets, marketing.",
      "/mcp/marketing:ads": "This server serves no toolset “ads” of marketing; it serves deliveries,",
      "/mcp/pager/readonly/readonly": "“readonly” repeats the readonly part.",
      "/mcp/pager/": "A connector URL has no empty part",
    };
    for (const [path, message] of Object.entries(cases)) {
      const answer = await fetch(`${base}${path}`, { method: "POST", body: "{}" });
      expect(answer.status, path).toBe(404);
      const body = await answer.text();
      expect(body, path).toContain(message);
      expect(body, path).toContain("Connector URLs take the form /mcp/<toolkit>");
    }
  });
});

describe("connector URLs on a server with --read-only --toolkits pager,marketing", () => {
  let server: RunningServer;
  let base: string;
  beforeAll(async () => {
    server = await startHttpServer(["--sandbox", "--read-only", "--toolkits", "pager,marketing"]);
    base = server.url.replace(/\/mcp$/, "");
  });
  afterAll(() => server?.stop());

  it("cannot widen --read-only: a selection without readonly still serves only read-only tools", async () => {
    const client = await connectHttp("v2", `${base}/mcp/marketing:segments`);
    try {
      expect(await listed(client)).toEqual(namesOf(SEGMENTS.filter((tool) => tool.hints.readOnly)));
      expect(SEGMENTS.some((tool) => !tool.hints.readOnly)).toBe(true);
      const write = await client.call("MarketingApi_CreateManualSegment", { name: "VIP" });
      expect(write.isError).toBe(true);
      expect(write.text).toMatch(NOT_HERE);
    } finally {
      await client.close();
    }
  });

  it("cannot widen --read-only through the search catalogue", async () => {
    const client = await connectHttp("v1", `${base}/mcp/search`);
    try {
      const found = await client.call("search_tools", { query: "create a manual segment", limit: 20 });
      const names = JSON.stringify(found.data);
      expect(names).toContain("MarketingApi_GetAllSegments");
      expect(names).not.toContain("MarketingApi_CreateManualSegment");
      const write = await client.call("call_tool", {
        name: "MarketingApi_CreateManualSegment",
        arguments: { name: "VIP" },
      });
      expect(write.isError).toBe(true);
      expect(write.text).toContain("MarketingApi_CreateManualSegment");
    } finally {
      await client.close();
    }
  });

  it("cannot widen --toolkits: a toolkit the server leaves out is 404", async () => {
    const answer = await fetch(`${base}/mcp/sheets`, { method: "POST", body: "{}" });
    expect(answer.status).toBe(404);
    expect(await answer.text()).toContain(
      "This server serves no toolkit “sheets”; it serves pager, marketing.",
    );
  });
});

describe("connector URLs on a server with an authorization server", () => {
  const ISSUER = "https://issuer.test";
  const TOKEN = "static-bearer-token-for-the-connector-tests";
  let server: RunningServer;
  let base: string;
  beforeAll(async () => {
    server = await startHttpServer(["--sandbox"], {
      MCP_HTTP_BEARER_TOKENS: TOKEN,
      MCP_OAUTH_ISSUER: ISSUER,
      MCP_OAUTH_AUDIENCE: "toolkits-mcp-test",
      // Never fetched: no request here carries a JWT.
      MCP_OAUTH_JWKS_URL: "http://127.0.0.1:9/jwks.json",
    });
    base = server.url.replace(/\/mcp$/, "");
  });
  afterAll(() => server?.stop());

  it("gives each connector URL its own protected-resource metadata, which its 401 points to", async () => {
    for (const path of ["/mcp", "/mcp/pager/readonly", "/mcp/marketing:segments,broadcasts"]) {
      const metadataUrl = `${base}/.well-known/oauth-protected-resource${path}`;
      const metadata = await (await fetch(metadataUrl)).json();
      expect(metadata).toEqual({
        resource: `${base}${path}`,
        authorization_servers: [ISSUER],
        bearer_methods_supported: ["header"],
      });
      const refused = await fetch(`${base}${path}`, { method: "POST", body: "{}" });
      expect(refused.status).toBe(401);
      expect(refused.headers.get("www-authenticate")).toContain(`resource_metadata="${metadataUrl}"`);
    }
  });

  it("has no metadata for a selection not served, and says why only to a caller it knows", async () => {
    expect((await fetch(`${base}/.well-known/oauth-protected-resource/mcp/jira`)).status).toBe(404);
    expect((await fetch(`${base}/mcp/jira`, { method: "POST", body: "{}" })).status).toBe(401);
    const known = await fetch(`${base}/mcp/jira`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}` },
      body: "{}",
    });
    expect(known.status).toBe(404);
    expect(await known.text()).toContain("This server serves no toolkit “jira”");
  });

  it("serves a connector URL to a client with a token", async () => {
    const client = await connectHttp("v2", `${base}/mcp/pager`, { authorization: `Bearer ${TOKEN}` });
    try {
      expect(await listed(client)).toEqual(namesOf(PAGER));
    } finally {
      await client.close();
    }
  });
});
