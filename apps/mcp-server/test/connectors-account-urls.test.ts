import { describe, expect, it } from "vitest";
import { serverNameFitting } from "../src/clients/fit.js";
import { accountUrls } from "../src/connectors/accounts.js";
import { TOOLKITS } from "../src/toolkits.js";

// The front page's connector URL per account: offered only where a person holds several accounts
// at a provider, each under a server name keeping Claude Code's mcp__<server>__<tool> within 64.

const kits = Object.values(TOOLKITS);
const namesOf = (id: string) => (TOOLKITS[id]?.tools ?? []).map((tool) => tool.name);

describe("connector URLs per account", () => {
  it("offers one URL per account of a provider with several, named to fit beside the toolkit's longest tool", () => {
    const urls = accountUrls(kits, { pager: ["eu", "b"], google: ["alice"] }, namesOf);
    expect(urls.map((url) => url.path)).toEqual(["/mcp/pager@eu", "/mcp/pager@b"]);
    expect(urls[0]?.what).toBe("Pager tools as your PagerDuty account “eu” (the default)");
    const longest = Math.max(...namesOf("pager").map((name) => name.length));
    for (const url of urls) expect(`mcp__${url.name}__`.length + longest).toBeLessThanOrEqual(64);
    expect(urls.map((url) => url.name)).toEqual(["toolkits-pager-eu", "toolkits-pager-b"]);
  });

  it("names each account's server apart even where the toolkit's long tool names leave little room", () => {
    const labels = ["main-us", "main-eu", "staging-workspace-eu", "staging-workspace-us"];
    const urls = accountUrls(kits, { marketing: labels }, namesOf);
    const longest = Math.max(...namesOf("marketing").map((name) => `${name}`.replace(".", "_").length));
    const names = urls.map((url) => url.name);
    expect(new Set(names).size).toBe(labels.length);
    for (const name of names) {
      expect(`mcp__${name}__`.length + longest).toBeLessThanOrEqual(64);
      expect(name).toMatch(/^[A-Za-z0-9_-]+$/);
    }
    // Short labels keep their whole selves; long ones sharing a beginning are told apart by a number.
    expect(names.slice(0, 2)).toEqual(["main-us", "main-eu"]);
  });

  it("offers nothing to a person with one account per provider", () => {
    expect(accountUrls(kits, { pager: ["eu"], google: ["alice"] }, namesOf)).toEqual([]);
  });

  it("cuts a long name to the room left, and makes every character one a client takes", () => {
    const tool = "x".repeat(40);
    const name = serverNameFitting("toolkits-pager-some.very.long.label", [tool]);
    expect(`mcp__${name}__${tool}`.length).toBeLessThanOrEqual(64);
    expect(name).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(name).toBe("toolkits-pager-so");
  });
});
