import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  defineTool,
  envAdvice,
  envHost,
  firstSecret,
  invokeTool,
  type Logger,
  READ_ONLY_HINTS,
  redact,
  Secret,
  secretsFromFunction,
  secretsFromMap,
  ToolError,
} from "../src/index.js";

const VALUE = "sk_live_abcdef123456";

describe("Secret", () => {
  const secret = new Secret("MARKETING_API_KEY", VALUE);

  it("never prints its value through JSON, template strings or util.inspect", () => {
    expect(JSON.stringify({ key: secret })).toBe('{"key":"[redacted MARKETING_API_KEY]"}');
    expect(`${secret}`).toBe("[redacted MARKETING_API_KEY]");
    expect(inspect({ nested: { secret } })).not.toContain(VALUE);
    expect(inspect(secret)).toBe("[redacted MARKETING_API_KEY]");
    expect(secret.reveal()).toBe(VALUE);
  });

  it("is scrubbed from error messages and arbitrary text", () => {
    const error = new ToolError("unauthenticated", `upstream said: key ${VALUE} is invalid`);
    expect(error.message).toBe("upstream said: key [redacted] is invalid");
    expect(redact(`Bearer ${VALUE}`)).toBe("Bearer [redacted]");
  });

  it("is scrubbed from a thrown handler error before the caller sees it", async () => {
    const tool = defineTool({
      name: "Test.Leak",
      title: "Leak",
      description: "throws an error quoting its key",
      input: z.object({}),
      output: z.object({}),
      hints: READ_ONLY_HINTS,
      auth: { secret: "MARKETING_API_KEY" },
      async handler(_input, context) {
        const key = (await context.credential()).value;
        throw new Error(`request with ${key.reveal()} failed`);
      },
    });
    const lines: string[] = [];
    const record = (message: string, fields?: Record<string, unknown>) =>
      lines.push(JSON.stringify({ message, fields }));
    const logger: Logger = { debug: record, info: record, warn: record, error: record };
    const host = envHost({ MARKETING_API_KEY: VALUE }, { logger });
    const outcome = await invokeTool(tool, {}, host);
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.message).toContain("request with [redacted] failed");
    expect(outcome.error.toText()).not.toContain(VALUE);
    expect(lines.join("")).toContain("[redacted]");
    expect(lines.join("")).not.toContain(VALUE);
  });
});

describe("secret providers", () => {
  it("chain map and function providers, the first that knows a name winning", async () => {
    const lookup = firstSecret(
      secretsFromMap({ A: "from-map" }),
      secretsFromFunction(async (name) => (name === "B" ? "from-function" : undefined)),
    );
    expect(await lookup("A")).toBe("from-map");
    expect(await lookup("B")).toBe("from-function");
    expect(await lookup("C")).toBeUndefined();
  });

  it("report a missing secret by name with how to set it, before the handler runs", async () => {
    let ran = false;
    const tool = defineTool({
      name: "Test.NeedsKey",
      title: "Needs key",
      description: "needs a key",
      input: z.object({}),
      output: z.object({}),
      hints: READ_ONLY_HINTS,
      auth: { secret: "MARKETING_API_KEY" },
      async handler() {
        ran = true;
        return {};
      },
    });
    const outcome = await invokeTool(tool, {}, envHost({}));
    expect(ran).toBe(false);
    expect(outcome.ok ? "" : outcome.error.toText()).toBe(
      "unauthenticated: The secret MARKETING_API_KEY is not configured. Set the MARKETING_API_KEY environment variable.",
    );
  });

  it("advise a library's caller to set the variable, and a server's operator to restart it too", () => {
    const secret = { kind: "secret", name: "MARKETING_API_KEY" } as const;
    const token = { kind: "token", provider: "pager", alternativeSecret: "PAGER_API_TOKEN" } as const;
    expect(envAdvice(secret)).toBe("Set the MARKETING_API_KEY environment variable.");
    expect(envAdvice(token)).toBe(
      "Set PAGER_ACCESS_TOKEN to an OAuth access token for pager (or PAGER_API_TOKEN to an API token).",
    );
    expect(envAdvice(secret, "the server")).toBe(
      "Set the MARKETING_API_KEY environment variable for the server and restart it.",
    );
    expect(envAdvice(token, "the server")).toBe(
      "Set PAGER_ACCESS_TOKEN to an OAuth access token for pager (or PAGER_API_TOKEN to an API token) and restart the server.",
    );
  });

  it("look a credential up once per call, for the check and the handler alike", async () => {
    let lookups = 0;
    const tool = defineTool({
      name: "Test.TokenTwice",
      title: "Token twice",
      description: "asks for its token twice",
      input: z.object({}),
      output: z.object({ same: z.boolean() }),
      hints: READ_ONLY_HINTS,
      auth: { oauth: { provider: "pager", scopes: ["read"] } },
      async handler(_input, context) {
        const first = (await context.credential()).value;
        const second = (await context.credential()).value;
        return { same: first.reveal() === second.reveal() };
      },
    });
    const host = envHost({}, { tokens: () => `token-${++lookups}` });
    const outcome = await invokeTool(tool, {}, host);
    expect(outcome).toEqual({ ok: true, result: { same: true } });
    expect(lookups).toBe(1);
    await invokeTool(tool, {}, host);
    expect(lookups).toBe(2);
  });

  it("report a missing OAuth token naming the provider's variable, unless its alternative secret is set", async () => {
    const tool = defineTool({
      name: "Test.NeedsToken",
      title: "Needs token",
      description: "needs a token",
      input: z.object({}),
      output: z.object({ ok: z.boolean() }),
      hints: READ_ONLY_HINTS,
      auth: { oauth: { provider: "pager", scopes: ["read"] }, secret: "PAGER_API_TOKEN" },
      async handler() {
        return { ok: true };
      },
    });
    const missing = await invokeTool(tool, {}, envHost({}));
    expect(missing.ok ? "" : missing.error.message).toContain("Set PAGER_ACCESS_TOKEN");
    expect((await invokeTool(tool, {}, envHost({ PAGER_API_TOKEN: "classic-token" }))).ok).toBe(true);
    expect((await invokeTool(tool, {}, envHost({ PAGER_ACCESS_TOKEN: "oauth-token" }))).ok).toBe(true);
  });
});
