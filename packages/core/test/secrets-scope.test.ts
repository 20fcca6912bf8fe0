import { setTimeout as tick } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  defineTool,
  envHost,
  type Host,
  invokeTool,
  READ_ONLY_HINTS,
  redact,
  redactJson,
  Secret,
  ToolError,
  withSecretScope,
} from "../src/index.js";
import { installLeakScan, LeakScan } from "../src/testing/index.js";

// Each test wraps its values in a scope of its own, or under register: false, so nothing
// registered here reaches the process-wide set other tests of this file see.
const ALICE = "alice-token-4Fq9Zr2X";
const BOB = "bob-token-8Lm3Wd7K";

/** A local leak scan for the test (scoped values join it), instead of the suite's. */
let restore: (() => void) | undefined;
function localScan(): LeakScan {
  const scan = new LeakScan();
  restore = installLeakScan(scan);
  return scan;
}
afterEach(() => {
  restore?.();
  restore = undefined;
});

/** What `run` returns in a new secret scope where `value` was wrapped first. */
function wrappedIn<R>(value: string, run: () => R): R {
  return withSecretScope(() => {
    new Secret("SCOPED", value);
    return run();
  });
}

describe("a secret scope", () => {
  it("redacts what is wrapped inside it there, even after an await, and nowhere else", async () => {
    localScan();
    const inside = await withSecretScope(async () => {
      new Secret("ALICE_TOKEN", ALICE);
      await tick(1);
      return [redact(`got ${ALICE}`), new ToolError("upstream_error", `echo ${ALICE}`).message];
    });
    expect(inside).toEqual(["got [redacted]", "echo [redacted]"]);
    expect(redact(`got ${ALICE}`)).toBe(`got ${ALICE}`);
  });

  it("keeps two scopes running side by side apart", async () => {
    localScan();
    const seen = (own: string, other: string) =>
      withSecretScope(async () => {
        new Secret("TOKEN", own);
        await tick(5);
        return redact(`${own} ${other}`);
      });
    expect(await Promise.all([seen(ALICE, BOB), seen(BOB, ALICE)])).toEqual([
      `[redacted] ${BOB}`,
      `[redacted] ${ALICE}`,
    ]);
  });

  it("inside another also redacts the outer one's values; the outer never learns the inner's", () => {
    localScan();
    withSecretScope(() => {
      new Secret("OUTER", ALICE);
      expect(wrappedIn(BOB, () => redact(`${ALICE} ${BOB}`))).toBe("[redacted] [redacted]");
      expect(redact(`${ALICE} ${BOB}`)).toBe(`[redacted] ${BOB}`);
    });
  });

  it("replaces a scoped value whole when a process-wide one lies inside it", () => {
    localScan();
    const outer = "process-wide-inner-7Hd2";
    new Secret("SERVER_KEY", outer);
    const scoped = `a1b2c3-${outer}-z9y8x7`;
    expect(wrappedIn(scoped, () => redact(`key ${scoped} refused`))).toBe("key [redacted] refused");
  });

  it("joins the leak scan, which finds its value in any form in output outside the scope", () => {
    const scan = localScan();
    withSecretScope(() => new Secret("ALICE_TOKEN", ALICE));
    scan.check("here", `Authorization: Basic ${Buffer.from(`user:${ALICE}`).toString("base64")}`);
    expect(scan.take().map((leak) => leak.where)).toEqual(["here"]);
  });
});

describe("a secret wrapped with register: false", () => {
  it("never prints, and is redacted nowhere: a pasted string is not a credential", () => {
    localScan();
    const pasted = new Secret("MARKETING_API_KEY", "/connect/", { register: false });
    expect(`${pasted}`).toBe("[redacted MARKETING_API_KEY]");
    expect(pasted.reveal()).toBe("/connect/");
    const link = "https://server.example/connect/pager?code=c0de";
    expect(redact(link)).toBe(link);
    expect(withSecretScope(() => redact(link))).toBe(link);
  });
});

/** Fails quoting its argument and the caller's token, as an upstream echoing both would. */
const echo = defineTool({
  name: "Test.EchoToken",
  title: "Echo token",
  description: "Fails with a message quoting its text and the caller's token.",
  input: z.object({ text: z.string() }),
  output: z.object({}),
  hints: READ_ONLY_HINTS,
  auth: { oauth: { provider: "demo", scopes: [] } },
  async handler({ text }, context) {
    const token = (await context.credential()).value.reveal();
    throw new ToolError("upstream_error", `upstream refused ${text} (token ${token})`);
  },
});

/** A host acting as each person with their own token, logging what its calls log. */
function peopleHost(lines: string[]): Host {
  const record = (message: string, fields?: Record<string, unknown>) =>
    void lines.push(redact(`${message} ${JSON.stringify(fields)}`));
  const logger = { debug: record, info: record, warn: record, error: record };
  const base = envHost({}, { logger, audit: (call) => logger.info("tool call", { ...call }) });
  const tokens: Record<string, string> = { alice: ALICE, bob: BOB };
  return { ...base, forPrincipal: (principal) => ({ ...base, tokens: () => tokens[principal] }) };
}

describe("a call acting as one person", () => {
  it("redacts that person's token from their own error, but not from another's, nor from the audit", async () => {
    const scan = localScan();
    const lines: string[] = [];
    const host = peopleHost(lines);
    const alices = await invokeTool(echo, { text: "x" }, host, { principal: "alice" });
    expect(alices.ok ? "" : alices.error.message).toBe("upstream refused x (token [redacted])");
    // Bob's text happens to be Alice's token: his own answer is his to see unchanged.
    const bobs = await invokeTool(echo, { text: ALICE }, host, { principal: "bob" });
    expect(bobs.ok ? "" : bobs.error.message).toBe(`upstream refused ${ALICE} (token [redacted])`);
    expect(redact(ALICE)).toBe(ALICE);
    expect(
      lines.filter((line) => line.startsWith("tool call")).map((line) => JSON.parse(line.slice(10))),
    ).toEqual([
      expect.objectContaining({ principal: "alice" }),
      expect.objectContaining({ principal: "bob" }),
    ]);
    // Yet the leak scan knows both tokens: Alice's in Bob's answer is reported.
    expect(scan.take().map((leak) => leak.where)).toEqual(["tool result Test.EchoToken"]);
  });

  it("on a host serving everyone alike registers its credential process-wide, as before", async () => {
    localScan();
    const host = envHost({}, { tokens: () => "shared-token-5Tg8Pq" });
    const outcome = await invokeTool(echo, { text: "x" }, host, { principal: "alice" });
    expect(outcome.ok ? "" : outcome.error.message).toBe("upstream refused x (token [redacted])");
    expect(redact("shared-token-5Tg8Pq")).toBe("[redacted]");
  });
});

describe("redactJson", () => {
  const line = (fields: Record<string, unknown>) =>
    `${JSON.stringify({ level: 30, time: 1_718_000_000_000, ...fields, msg: "tool call" })}\n`;

  it("redacts inside strings, keys and values, and the text stays JSON", () => {
    localScan();
    withSecretScope(() => {
      new Secret("KEY", 'k"ey-7Yh2Qm');
      const written = line({ reason: `upstream said k"ey-7Yh2Qm is wrong`, 'k"ey-7Yh2Qm': 1 });
      expect(JSON.parse(redactJson(written))).toEqual({
        level: 30,
        time: 1_718_000_000_000,
        reason: "upstream said [redacted] is wrong",
        "[redacted]": 1,
        msg: "tool call",
      });
    });
  });

  it.each(['{"level":30,"time":', "30", ',"msg":"'])(
    "never rewrites punctuation or numbers, whatever is registered: %s",
    (value) => {
      localScan();
      const written = line({ outcome: "ok" });
      const scrubbed = wrappedIn(value, () => redactJson(written));
      expect(JSON.parse(scrubbed)).toMatchObject({ level: 30, time: 1_718_000_000_000, msg: "tool call" });
    },
  );

  it("leaves a line without secrets as it is", () => {
    const written = line({ principal: "alice", outcome: "ok" });
    expect(redactJson(written)).toBe(written);
  });
});
