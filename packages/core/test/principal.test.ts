import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type CallRecord,
  defineTool,
  envHost,
  type Host,
  invokeTool,
  memoryState,
  READ_ONLY_HINTS,
  ToolError,
} from "../src/index.js";
import { createMcpServer, createToolRegistry } from "../src/mcp/index.js";

/** A tool that needs the `demo` provider's token, reads it upstream twice and says whose it was. */
const whose = defineTool({
  name: "Demo.Whose",
  title: "Whose token",
  description: "Answers whose access token the call ran with, as the upstream saw it in two requests.",
  input: z.object({}),
  output: z.object({ owner: z.string() }),
  hints: READ_ONLY_HINTS,
  auth: { oauth: { provider: "demo", scopes: [] } },
  async handler(_input, context) {
    const token = (await context.credential()).value.reveal();
    await context.fetch("https://upstream.example/a", { headers: { authorization: `Bearer ${token}` } });
    const answer = await context.fetch("https://upstream.example/b");
    return { owner: `${token.replace("token-of-", "")} (${await answer.text()})` };
  },
});

const LINK = {
  url: "https://server.example/connect/demo?code=c0de",
  id: "e1",
  message: "Connect your Demo account.",
};

/**
 * A host serving people separately: `alice` has a token, anyone else is asked to connect; each
 * person's view counts its own upstream requests. `connected` lets a test connect someone.
 */
function peopleHost(records: CallRecord[], connected = new Set(["alice"])): Host {
  const base = envHost({}, { audit: (record) => records.push(record) });
  return {
    ...base,
    tokens: () => undefined,
    forPrincipal: (principal) => ({
      ...base,
      tokens: () => {
        if (connected.has(principal)) return `token-of-${principal}`;
        throw new ToolError("unauthenticated", `Not connected. Open ${LINK.url}, then call again.`, {
          connect: LINK,
        });
      },
      fetch: async () => new Response("ok"),
    }),
  };
}

describe("calls made as a person (CallScope.principal)", () => {
  it("run on that person's view of the host, and the audit hears who, what, the outcome and the upstream requests", async () => {
    const records: CallRecord[] = [];
    const outcome = await invokeTool(whose, {}, peopleHost(records), { principal: "alice" });
    expect(outcome).toEqual({ ok: true, result: { owner: "alice (ok)" } });
    expect(records).toEqual([
      {
        tool: "Demo.Whose",
        principal: "alice",
        outcome: "ok",
        durationMs: expect.any(Number),
        upstreamRequests: 2,
      },
    ]);
  });

  it("answer someone not connected with the error carrying the connect link, sending nothing upstream", async () => {
    const records: CallRecord[] = [];
    const outcome = await invokeTool(whose, {}, peopleHost(records), { principal: "bob" });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.kind).toBe("unauthenticated");
    expect(outcome.error.connect).toEqual(LINK);
    expect(records[0]).toMatchObject({ principal: "bob", outcome: "unauthenticated", upstreamRequests: 0 });
  });

  it("without a principal, run on the host itself", async () => {
    const outcome = await invokeTool(whose, {}, peopleHost([]));
    expect(outcome.ok === false && outcome.error.kind).toBe("unauthenticated");
  });
});

describe("memoryState", () => {
  it("keeps JSON values until their time to live, and deletes them", async () => {
    let now = 1_000;
    const state = memoryState(() => now);
    await state.set("session", { id: "s1", picked: ["f1"] }, 500);
    expect(await state.get("session")).toEqual({ id: "s1", picked: ["f1"] });
    now += 499;
    expect(await state.get("session")).toEqual({ id: "s1", picked: ["f1"] });
    now += 1;
    expect(await state.get("session")).toBeUndefined();
    await state.set("other", 1, 1_000);
    expect(await state.delete("other")).toBe(true);
    expect(await state.delete("other")).toBe(false);
  });

  it("treats prototype member names as plain keys", async () => {
    const state = memoryState();
    expect(await state.get("constructor")).toBeUndefined();
    await state.set("__proto__", { polluted: true }, 1_000);
    expect(await state.get("__proto__")).toEqual({ polluted: true });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

/**
 * A client connected in memory to `whose` on `host`, every call made as `principal`, declaring
 * URL elicitation or not; `onUrl` answers the URL elicitations it is sent.
 */
async function connect(
  host: Host,
  options: { era: "modern" | "legacy"; principal: string; onUrl?: (url: string, message: string) => void },
): Promise<Client> {
  const registry = createToolRegistry([whose], host, { names: "dotted" });
  // The transport says who calls; here every call comes from one person.
  const asPerson: typeof registry = {
    ...registry,
    call: (name, args, extra) => registry.call(name, args, { ...extra, principal: options.principal }),
  };
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  serveStdio(() => createMcpServer(asPerson, { name: "test", version: "0" }), { transport: serverSide });
  const client = new Client(
    { name: "test-client", version: "0" },
    {
      capabilities: options.onUrl ? { elicitation: { url: {} } } : {},
      ...(options.era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {}),
    },
  );
  const onUrl = options.onUrl;
  if (onUrl) {
    client.setRequestHandler("elicitation/create", async (request) => {
      const params = request.params as { url?: string; message: string };
      onUrl(params.url ?? "", params.message);
      return { action: "accept" };
    });
  }
  await client.connect(clientSide);
  return client;
}

const textOf = (result: { content?: unknown }) =>
  ((result.content as { type: string; text?: string }[] | undefined)?.[0]?.text ?? "") as string;

describe("a call that needs the caller to connect an account, over MCP", () => {
  it("2026-07-28 with URL elicitation: asks through input_required, and the client's retry succeeds once connected", async () => {
    const connected = new Set(["alice"]);
    const opened: string[] = [];
    const client = await connect(peopleHost([], connected), {
      era: "modern",
      principal: "bob",
      onUrl: (url, message) => {
        opened.push(`${url} ${message}`);
        connected.add("bob"); // the person followed the link and connected
      },
    });
    const result = await client.callTool({ name: "Demo.Whose", arguments: {} });
    expect(opened).toEqual([`${LINK.url} ${LINK.message}`]);
    expect(result.structuredContent).toEqual({ owner: "bob (ok)" });
    await client.close();
  });

  it("2026-07-28 when the person did not connect after all: the retry answers the error with the link", async () => {
    const client = await connect(peopleHost([]), { era: "modern", principal: "bob", onUrl: () => {} });
    const result = await client.callTool({ name: "Demo.Whose", arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(`unauthenticated: Not connected. Open ${LINK.url}, then call again.`);
    await client.close();
  });

  it("2025-11-25 with URL elicitation: the URL-elicitation-required error (-32042) carrying the link", async () => {
    const client = await connect(peopleHost([]), { era: "legacy", principal: "bob", onUrl: () => {} });
    const failure = await client.callTool({ name: "Demo.Whose", arguments: {} }).then(
      () => undefined,
      (error: unknown) => error as { code?: number; data?: unknown },
    );
    expect(failure?.code).toBe(-32042);
    expect(failure?.data).toEqual({
      elicitations: [{ mode: "url", elicitationId: LINK.id, url: LINK.url, message: LINK.message }],
    });
    await client.close();
  });

  for (const era of ["modern", "legacy"] as const) {
    it(`${era === "modern" ? "2026-07-28" : "2025-11-25"} without URL elicitation: an isError result with the link and what to do`, async () => {
      const client = await connect(peopleHost([]), { era, principal: "bob" });
      const result = await client.callTool({ name: "Demo.Whose", arguments: {} });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain(`Open ${LINK.url}, then call again.`);
      await client.close();
    });
  }
});
