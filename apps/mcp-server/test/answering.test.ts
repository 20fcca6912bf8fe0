import { silentLogger, toolNames } from "@toolkits/core";
import type { CallResult, McpCallScope, ToolRegistry } from "@toolkits/core/mcp";
import { describe, expect, it } from "vitest";
import { ACCOUNT_META_KEY, namingAccounts } from "../src/answering.js";
import type { AnsweringAccount, ChoosingHost } from "../src/credentials/choice.js";
import { TOOLKITS } from "../src/toolkits.js";

const TOOLS = Object.values(TOOLKITS).flatMap((kit) => kit.tools);
const ANSWER = {
  content: [{ type: "text", text: '{"user":{"id":"P1"}}' }],
  structuredContent: { user: { id: "P1" } },
};

/** A registry answering every call with ANSWER (or `error`), over the toolkits' names. */
function stubRegistry(error = false): ToolRegistry {
  return {
    listing: [],
    names: toolNames(
      TOOLS.map((tool) => tool.name),
      "underscore",
    ),
    inputSchema: () => undefined,
    call: async () =>
      (error
        ? { isError: true, content: [{ type: "text", text: "unauthenticated: no" }] }
        : ANSWER) as CallResult,
  } as ToolRegistry;
}

/** A host whose accounts answer `account`, recording what it was asked. */
function hostAnswering(account: AnsweringAccount | undefined) {
  const asked: unknown[][] = [];
  const host: ChoosingHost = {
    secrets: () => undefined,
    tokens: () => undefined,
    settings: () => undefined,
    logger: silentLogger,
    howToSupply: () => "",
    answeringAccount: async (...args: unknown[]) => {
      asked.push(args);
      return account;
    },
  };
  return { host, asked };
}

const scope: McpCallScope = { principal: "token:alice", signal: new AbortController().signal };

describe("who-am-I answers name the account that answered", () => {
  it("adds a sentence and _meta, the structured content unchanged", async () => {
    const { host, asked } = hostAnswering({ label: "eu", isDefault: false });
    const registry = namingAccounts(stubRegistry(), TOOLS, host, { pager: "eu" });
    const result = (await registry.call("Pager_WhoAmI", {}, scope)) as typeof ANSWER & { _meta: object };
    expect(result.structuredContent).toEqual(ANSWER.structuredContent);
    expect(result.content).toEqual([
      ANSWER.content[0],
      { type: "text", text: "Answered by the PagerDuty account “eu” (not the default)." },
    ]);
    expect(result._meta).toEqual({ [ACCOUNT_META_KEY]: { provider: "pager", label: "eu", default: false } });
    expect(asked).toEqual([["pager", "token:alice", { pager: "eu" }]]);
    expect(ANSWER.content).toHaveLength(1); // the registry's own result is left as it was
  });

  it("names the account of Sheets and marketing, dotted or through call_tool", async () => {
    const { host, asked } = hostAnswering({ label: "work", isDefault: true });
    const registry = namingAccounts(stubRegistry(), TOOLS, host, {});
    const sheets = (await registry.call("Sheets.WhoAmI", {}, scope)) as typeof ANSWER;
    expect(sheets.content[1]?.text).toBe("Answered by the Google account “work” (the default).");
    const viaCatalog = (await registry.call(
      "call_tool",
      { name: "MarketingApi_ListWorkspaces" },
      scope,
    )) as typeof ANSWER;
    expect(viaCatalog.content[1]?.text).toBe(
      "Answered by the Customer.io App API account “work” (the default).",
    );
    expect(asked.map(([provider]) => provider)).toEqual(["google", "marketing"]);
  });

  it("leaves other tools, errors and unlabelled credentials as they are, asking nothing", async () => {
    const { host, asked } = hostAnswering({ label: "eu", isDefault: true });
    const registry = namingAccounts(stubRegistry(), TOOLS, host, {});
    expect(await registry.call("Pager_ListIncidents", {}, scope)).toBe(ANSWER);
    expect(asked).toEqual([]);
    const failing = namingAccounts(stubRegistry(true), TOOLS, host, {});
    expect((await failing.call("Pager_WhoAmI", {}, scope)).content).toHaveLength(1);
    const unlabelled = namingAccounts(stubRegistry(), TOOLS, hostAnswering(undefined).host, {});
    expect(await unlabelled.call("Pager_WhoAmI", {}, scope)).toBe(ANSWER);
  });
});
