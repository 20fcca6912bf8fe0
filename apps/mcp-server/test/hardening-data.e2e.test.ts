import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_MAX_MESSAGE_BYTES } from "../src/stdio/index.js";
import { callOutcome, type RawStdio, startRawStdio, toolCall } from "./hardening-data-stdio.js";
import {
  ECHOES,
  echoingUpstream,
  hangingUpstream,
  recordingUpstream,
  type Upstream,
} from "./hardening-data-upstreams.js";

const running: RawStdio[] = [];
const upstreams: Upstream[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) server.child.kill("SIGKILL");
  await Promise.all(upstreams.splice(0).map((upstream) => upstream.close()));
});

async function start(args: string[], env: Record<string, string> = {}): Promise<RawStdio> {
  const server = await startRawStdio(args, env);
  running.push(server);
  return server;
}

async function upstream(make: () => Promise<Upstream>): Promise<Upstream> {
  const made = await make();
  upstreams.push(made);
  return made;
}

/** A JSON-RPC line of about `bytes` bytes: `fields` with a long string in the middle. */
function paddedLine(bytes: number, before: string, after: string): string {
  return `${before}${"x".repeat(bytes - before.length - after.length)}${after}`;
}

const MiB = 1024 * 1024;
const OVERSIZE_WARNING = "stdio message over the size limit dropped";

describe("toolkits-mcp over stdio: oversized lines", () => {
  it("answers a 10.5 MB and a 50 MB request with -32600, drops other oversized lines with a warning, and goes on", async () => {
    const server = await start(["--sandbox", "--toolkits", "pager"]);
    // The id first (as most clients write it), then last (as the MCP SDK's clients write it).
    await server.writeLine(
      paddedLine(
        10.5 * MiB,
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"Pager_ListTeams","arguments":{"padding":"',
        '"}}}',
      ),
    );
    await server.writeLine(
      paddedLine(
        50 * MiB,
        '{"method":"tools/call","params":{"name":"Pager_ListTeams","arguments":{"padding":"',
        '"}},"jsonrpc":"2.0","id":"fifty"}',
      ),
    );
    // A notification and a response have nothing to answer: dropped, with a warning.
    await server.writeLine(
      paddedLine(10.5 * MiB, '{"jsonrpc":"2.0","method":"notifications/progress","params":{"pad":"', '"}}'),
    );
    await server.writeLine(paddedLine(10.5 * MiB, '{"jsonrpc":"2.0","id":99,"result":{"pad":"', '"}}'));
    await server.send({ jsonrpc: "2.0", id: 4, method: "ping" });
    await server.send(toolCall(5, "Pager_ListTeams", { limit: 2 }));

    for (const [id, bytes] of [
      [2, 10.5 * MiB],
      ["fifty", 50 * MiB],
    ] as const) {
      expect(await server.answer(id)).toEqual({
        jsonrpc: "2.0",
        id,
        error: {
          code: -32600,
          message: `Message of ${bytes} bytes refused: this server reads at most ${DEFAULT_MAX_MESSAGE_BYTES} bytes per stdio message.`,
          data: { maxBytes: DEFAULT_MAX_MESSAGE_BYTES },
        },
      });
    }
    expect(await server.answer(4)).toEqual({ jsonrpc: "2.0", id: 4, result: {} });
    const listed = callOutcome(await server.answer(5));
    expect(listed.isError, listed.text).toBe(false);
    expect(JSON.parse(listed.text).teams).toHaveLength(2);
    expect(server.messages().some((message) => message.id === 99)).toBe(false);
    expect(server.stderr().split(OVERSIZE_WARNING)).toHaveLength(5);
    expect(server.child.exitCode).toBeNull();
  }, 60_000);
});

describe("toolkits-mcp over stdio: shutdown", () => {
  it("answers and exits with 0 within the grace period when stdin closes under two hung calls", async () => {
    const hung = await upstream(hangingUpstream);
    const graceMs = 2_000;
    const server = await start(["--toolkits", "pager"], {
      PAGER_API_URL: hung.url,
      PAGER_ACCESS_TOKEN: "token-for-shutdown-test",
      MCP_SHUTDOWN_GRACE_MS: String(graceMs),
    });
    await server.send(toolCall(2, "Pager_GetIncident", { incident_id: "P1" }));
    await server.send(toolCall(3, "Pager_GetIncident", { incident_id: "P2" }));
    await expect.poll(() => hung.arrivals.length, { timeout: 10_000 }).toBe(2);
    const closedAt = performance.now();
    server.child.stdin.end();
    const { code, at } = await server.exited;
    expect(code).toBe(0);
    // The grace, then a second for the aborted calls to answer and one to close: well under the
    // 15 s default, so a grace that was not honoured fails here.
    expect(at - closedAt).toBeGreaterThanOrEqual(graceMs - 100);
    expect(at - closedAt).toBeLessThan(graceMs + 5_000);
    for (const id of [2, 3]) {
      const outcome = callOutcome(await server.answer(id, 0));
      expect(outcome.isError).toBe(true);
      expect(outcome.text).toMatch(/^cancelled: GET \/incidents\/\{id\} was cancelled/);
    }
    expect(server.stderr()).toContain("aborting calls still running at shutdown");
  }, 40_000);
});

describe("toolkits-mcp over stdio: credentials echoed by an upstream", () => {
  const base64 = (text: string) => Buffer.from(text).toString("base64");
  const forms = (secret: string) => [
    secret,
    encodeURIComponent(secret),
    base64(secret),
    base64(`user:${secret}`),
    `Bearer ${secret}`,
    `Token token=${secret}`,
  ];

  it.each([
    ["a classic API token (Token token=…)", "PAGER_API_TOKEN", "pd-classic/Tok+en=with&odd chars"],
    ["an OAuth token (Bearer …)", "PAGER_ACCESS_TOKEN", "pd-oauth/acc+ess=token"],
    ["a 4-character API token", "PAGER_API_TOKEN", "k9Zq"],
  ])(
    "never shows %s in any form in tool errors or logs",
    async (_kind, variable, secret) => {
      const echo = await upstream(echoingUpstream);
      const server = await start(["--toolkits", "pager", "--log-level", "debug"], {
        PAGER_API_URL: echo.url,
        [variable]: secret,
      });
      const names = Object.keys(ECHOES);
      for (const [index, form] of names.entries()) {
        await server.send(toolCall(index + 10, "Pager_GetIncident", { incident_id: form }));
      }
      for (const [index, form] of names.entries()) {
        const { isError, text } = callOutcome(await server.answer(index + 10));
        expect(isError, form).toBe(true);
        expect(text, form).toMatch(
          /^invalid_input: GET \/incidents\/\{id\} failed with HTTP 400: .*\[redacted\]/,
        );
      }
      const everything = `${JSON.stringify(server.messages())}\n${server.stderr()}`;
      for (const shown of forms(secret)) expect(everything.includes(shown), shown).toBe(false);
      // A short secret may appear inside other words, never as a token of its own.
      expect(everything).not.toMatch(new RegExp(`(?<![\\p{L}\\p{N}_-])${secret}(?![\\p{L}\\p{N}_-])`, "u"));
    },
    30_000,
  );
});

describe("toolkits-mcp over stdio: deeply nested request bodies", () => {
  it("refuses a body nested 10,000 levels deep as invalid_input and sends nothing", async () => {
    const recorder = await upstream(recordingUpstream);
    const server = await start(["--toolkits", "marketing"], {
      MARKETING_API_URL: recorder.url,
      MARKETING_API_KEY: "key-for-nesting-test",
    });
    const levels = 10_000;
    const body = `{"name":"deep","data":[${'{"a":'.repeat(levels)}1${"}".repeat(levels)}]}`;
    await server.send(
      toolCall(2, "MarketingApi_CreateNewCollection", { mode: "execute", request_body: body }),
    );
    const { isError, text } = callOutcome(await server.answer(2));
    expect(isError).toBe(true);
    expect(text).toMatch(/^invalid_input: request_body nests arrays and objects more than 100 levels deep/);
    expect(recorder.arrivals).toEqual([]);
  });
});
