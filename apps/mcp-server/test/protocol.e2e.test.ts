import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectHttp, connectStdio, GENERATIONS, type Generation, type TestClient } from "./clients.js";
import { type RunningServer, startHttpServer } from "./spawn.js";
import { slowDirectory } from "./upstream.js";

/** A name every client accepts: what Claude and OpenAI-style function calling require. */
const CLIENT_SAFE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
/** A canonical (dotted) tool name, which the default underscore form never shows a model. */
const DOTTED_MENTION = /\b(Pager|Sheets|MarketingApi)\.[A-Z]/;
const PROTOCOL: Record<Generation, string> = { v1: "2025-11-25", v2: "2026-07-28" };
const TRANSPORTS = ["stdio", "http"] as const;
type Transport = (typeof TRANSPORTS)[number];

const cases = GENERATIONS.flatMap((generation) => TRANSPORTS.map((transport) => ({ generation, transport })));

/** Starts the built server with `args` and `env` over `transport` and connects a `generation` client. */
async function open(
  generation: Generation,
  transport: Transport,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ client: TestClient; close(): Promise<void> }> {
  if (transport === "stdio") {
    const client = await connectStdio(generation, args, env);
    return { client, close: () => client.close() };
  }
  const server: RunningServer = await startHttpServer(args, env);
  const client = await connectHttp(generation, server.url);
  return {
    client,
    async close() {
      await client.close();
      await server.stop();
    },
  };
}

describe.each(cases)("SDK $generation client over $transport", ({ generation, transport }) => {
  let sandboxed: Awaited<ReturnType<typeof open>>;
  beforeAll(async () => {
    sandboxed = await open(generation, transport, ["--sandbox"]);
  });
  afterAll(() => sandboxed?.close());

  it("negotiates its protocol revision and lists 138 tools under names every client accepts", async () => {
    const { client } = sandboxed;
    expect(client.protocolVersion()).toBe(PROTOCOL[generation]);
    const tools = await client.listTools();
    // A stateless 2025-11-25 HTTP client's MCP Apps support is unknown: it also gets the views'
    // two read-only app-only tools (test/apps/negotiation.e2e.test.ts).
    expect(tools).toHaveLength(generation === "v1" && transport === "http" ? 140 : 138);
    expect(tools.filter((tool) => !CLIENT_SAFE_NAME.test(tool.name))).toEqual([]);
    expect(JSON.stringify(tools)).not.toMatch(DOTTED_MENTION);
  });

  it("calls a tool by either form of its name", async () => {
    const underscore = await sandboxed.client.call("Pager_WhoAmI");
    const dotted = await sandboxed.client.call("Pager.WhoAmI");
    expect(underscore.isError).toBe(false);
    expect(underscore.data).toMatchObject({ user: { name: "Avery Quinn" } });
    expect(dotted.data).toEqual(underscore.data);
  });

  it("answers errors as isError results that name tools as they are served", async () => {
    const invalid = await sandboxed.client.call("Pager_ListIncidents", { limit: 500 });
    expect(invalid.isError).toBe(true);
    expect(invalid.text).toMatch(/^invalid_input: Invalid arguments for Pager_ListIncidents: limit/);
    const missing = await sandboxed.client.call("Pager_GetIncident", { incident_id: "PNOSUCH" });
    expect(missing.isError).toBe(true);
    expect(missing.text).toMatch(/^not_found: .*Pager_ListIncidents/);
    expect(missing.text).not.toMatch(DOTTED_MENTION);
  });

  describe("a long directory scan", () => {
    let upstream: Awaited<ReturnType<typeof slowDirectory>>;
    let scanning: Awaited<ReturnType<typeof open>>;
    beforeAll(async () => {
      upstream = await slowDirectory(4_000, 40);
      scanning = await open(generation, transport, ["--toolkits", "pager"], {
        PAGER_API_URL: upstream.url,
        PAGER_ACCESS_TOKEN: "token-for-scan-tests",
      });
    });
    afterAll(async () => {
      await scanning?.close();
      await upstream?.close();
    });

    it("reports progress while it scans", async () => {
      const updates: { progress: number; total?: number }[] = [];
      const result = await scanning.client.call(
        "Pager_SearchUsers",
        { query: "Zzyzx Qwertyuiop" },
        {
          onprogress: (update) => updates.push(update),
        },
      );
      expect(result.isError, result.text).toBe(false);
      expect(result.data).toMatchObject({ users_searched: 4_000 });
      expect(updates.length).toBeGreaterThanOrEqual(10);
      expect(updates.map((update) => update.progress)).toEqual(
        [...updates.map((update) => update.progress)].sort((a, b) => a - b),
      );
      expect(updates.at(-1)).toMatchObject({ progress: 4_000, total: 4_000 });
    });

    it("stops its upstream requests within a second of the client cancelling", async () => {
      // A different credential, so the directory the previous test cached is not used.
      await scanning.close();
      scanning = await open(generation, transport, ["--toolkits", "pager"], {
        PAGER_API_URL: upstream.url,
        PAGER_ACCESS_TOKEN: "another-token-for-scan-tests",
      });
      const before = upstream.arrivals.length;
      const controller = new AbortController();
      let reported: () => void = () => {};
      const progressed = new Promise<void>((resolve) => (reported = resolve));
      const call = scanning.client.call(
        "Pager_SearchUsers",
        { query: "Zzyzx Qwertyuiop" },
        {
          signal: controller.signal,
          onprogress: (update) => update.progress >= 300 && reported(),
        },
      );
      await progressed;
      const abortedAt = performance.now();
      controller.abort("the user pressed stop");
      await expect(call).rejects.toThrow();
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const late = upstream.arrivals.filter(({ at }) => at > abortedAt + 1_000);
      expect(late).toEqual([]);
      // 40 pages make the whole directory; the scan stopped soon after the first few.
      expect(upstream.arrivals.length - before).toBeLessThan(20);
    });
  });
});
