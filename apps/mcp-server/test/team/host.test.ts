import { type AnyToolDefinition, envHost, invokeTool, memoryState, sandboxFetch } from "@toolkits/core";
import { marketingTool, marketingToolkit } from "@toolkits/marketing";
import { listServices, pagerToolkit } from "@toolkits/pager";
import { createSpreadsheet, getSpreadsheetMetadata, sheetsToolkit, whoAmI } from "@toolkits/sheets";
import type { RequestHandler } from "msw";
import { describe, expect, it } from "vitest";
import { withChosenAccounts } from "../../src/credentials/choice.js";
import type { AccountChoice } from "../../src/credentials/labels.js";
import type { PersonCredentials } from "../../src/team/credentials.js";
import { perUserHost } from "../../src/team/host.js";
import { hashKey } from "../../src/team/store/index.js";

// The per-user host on the toolkits' sandboxes: which budget each person's request is counted
// against, as the request names it, and where a person's marketing key sends its requests.

const ALICE = "token:alice";
const listWorkspaces = marketingTool("MarketingApi.ListWorkspaces") as AnyToolDefinition;

/**
 * Alice's host, her marketing key in `region`, her default account at each provider labelled
 * "main"; the budgets taken and the URLs sent, in order.
 */
async function aliceHost(region: "us" | "eu" | undefined, choice: AccountChoice = {}) {
  const [pager, sheets, marketing] = await Promise.all(
    [pagerToolkit, sheetsToolkit, marketingToolkit].map((kit) => kit.sandbox()),
  );
  const sent: string[] = [];
  // The marketing sandbox answers at the US host only; the EU host answers here.
  const euHost = async () => Response.json({ workspaces: [{ id: 7, name: "EU workspace" }] });
  const handlers = [pager, sheets, marketing].flatMap((box) => (box?.handlers ?? []) as RequestHandler[]);
  const fakes = await sandboxFetch(handlers, euHost);
  const taken: [string, string][] = [];
  const labels: (string | undefined)[] = [];
  const credentials: PersonCredentials = {
    accessToken: async (provider, _scopes, label) => {
      labels.push(label);
      const token = String(provider === "pager" ? pager?.tokens?.pager : sheets?.tokens?.google);
      return { token, label: label ?? "main" };
    },
    marketingKey: async (label) => {
      labels.push(label);
      return { key: String(marketing?.secrets?.MARKETING_API_KEY), region, label: label ?? "main" };
    },
  };
  const audits: unknown[] = [];
  const base = envHost(
    {},
    {
      audit: (record) => void audits.push(record),
      fetch: (input, init) => {
        sent.push(input instanceof Request ? input.url : String(input));
        return fakes(input, init);
      },
    },
  );
  const served = perUserHost(base, {
    credentials: () => credentials,
    grants: () => {
      throw new Error("not asked here");
    },
    limits: { take: async (budget, key) => void taken.push([budget, key]) },
    state: () => memoryState(),
  });
  const host = withChosenAccounts(served, choice);
  const call = async (tool: AnyToolDefinition, args = {}) => {
    const outcome = await invokeTool(tool, args, host, { principal: ALICE });
    if (!outcome.ok) throw outcome.error;
    return outcome.result as Record<string, unknown>;
  };
  return { call, sent, taken, labels, audits, key: String(marketing?.secrets?.MARKETING_API_KEY) };
}

describe("the per-user host", () => {
  it("counts each request against the budget its toolkit named, per person or per key, and Drive against none", async () => {
    const alice = await aliceHost("us");
    await alice.call(listServices, { limit: 1 });
    expect(alice.taken.splice(0)).toEqual([["pager", `${ALICE}\nmain`]]);
    await alice.call(listWorkspaces);
    expect(alice.taken.splice(0)).toEqual([["marketing", hashKey(`Bearer ${alice.key}`)]]);
    await alice.call(whoAmI);
    expect(alice.taken.splice(0)).toEqual([]);
    const created = await alice.call(createSpreadsheet, { title: "Budgets" });
    expect(alice.taken.splice(0)).toEqual([["sheets-write", `${ALICE}\nmain`]]);
    await alice.call(getSpreadsheetMetadata, { spreadsheet_id: created.spreadsheet_id });
    expect(alice.taken.splice(0)).toEqual([["sheets-read", `${ALICE}\nmain`]]);
  });

  it("counts the default account's calls against one budget whether or not a URL names it", async () => {
    const plain = await aliceHost("us");
    const named = await aliceHost("us", { pager: "main" });
    await plain.call(listServices, { limit: 1 });
    await named.call(listServices, { limit: 1 });
    expect([...plain.taken, ...named.taken]).toEqual([
      ["pager", `${ALICE}\nmain`],
      ["pager", `${ALICE}\nmain`],
    ]);
    // The audit line names the account that answered, the default's too.
    expect(plain.audits.at(-1)).toMatchObject({ principal: ALICE, accounts: { pager: "main" } });
  });

  it("acts as the chosen accounts, counting per-person budgets per person and account", async () => {
    const alice = await aliceHost("us", { pager: "eu", google: "work", marketing: "acme" });
    await alice.call(listServices, { limit: 1 });
    expect(alice.taken.splice(0)).toEqual([["pager", `${ALICE}\neu`]]);
    await alice.call(listWorkspaces);
    // The App API's budget is its key's: another account has another key.
    expect(alice.taken.splice(0)).toEqual([["marketing", hashKey(`Bearer ${alice.key}`)]]);
    await alice.call(createSpreadsheet, { title: "Budgets" });
    expect(alice.taken.splice(0)).toEqual([["sheets-write", `${ALICE}\nwork`]]);
    expect(alice.labels).toEqual(["eu", "acme", "work"]);
    expect(alice.audits.at(-1)).toMatchObject({
      tool: "Sheets.CreateSpreadsheet",
      principal: ALICE,
      accounts: { pager: "eu", google: "work", marketing: "acme" },
    });
  });

  it("sends a person's marketing requests to the region their key was connected in", async () => {
    const eu = await aliceHost("eu");
    expect(await eu.call(listWorkspaces)).toEqual({ workspaces: [{ id: 7, name: "EU workspace" }] });
    expect(eu.sent).toEqual(["https://api-eu.customer.io/v1/workspaces"]);
    const us = await aliceHost(undefined);
    await us.call(listWorkspaces);
    expect(us.sent).toEqual(["https://api.customer.io/v1/workspaces"]);
  });
});
