import type { Host } from "@toolkits/core";
import { describe, expect, it } from "vitest";
import { accountsNamed, connectors, parseSelection, SelectionError } from "../src/connectors/selection.js";
import type { ChoosingHost } from "../src/credentials/choice.js";
import { servedRegistries } from "../src/served.js";
import { TOOLKITS } from "../src/toolkits.js";
import { scopesView, within } from "../src/views.js";

const KITS = Object.values(TOOLKITS);
const ALL = KITS.flatMap((kit) => kit.tools);
const urls = connectors(KITS, ALL);
const admitted = (path: string) => ALL.filter(urls.viewOf(path).admits).map((tool) => tool.name);

/** Every spelling the grammar took before accounts had labels. */
const EARLIER_SPELLINGS = [
  "pager",
  "pager+sheets",
  "sheets+pager/readonly",
  "marketing:segments,broadcasts",
  "search/marketing:broadcasts,segments+pager/readonly",
  "readonly",
  "search",
  "readonly/search",
  "marketing%3Asegments",
];

describe("connector URLs naming accounts", () => {
  it("parses every earlier spelling as before: no account named, the same view id", () => {
    for (const path of EARLIER_SPELLINGS) {
      const selection = parseSelection(path);
      expect(selection.accounts.size, path).toBe(0);
      const view = urls.viewOf(path);
      expect(view.accounts, path).toBeUndefined();
      expect(view.id, path).not.toContain("@");
    }
    expect(urls.viewOf("sheets+pager/readonly").id).toBe("url:pager+sheets/readonly");
    expect(urls.viewOf("marketing:segments,broadcasts").id).toBe("url:marketing:broadcasts,segments");
  });

  it("reads <toolkit>@<label>, alone, combined and with toolsets, admitting what the label-less URL does", () => {
    const selection = parseSelection("pager@eu+sheets@work/readonly");
    expect(Object.fromEntries(selection.accounts)).toEqual({ pager: "eu", sheets: "work" });
    expect(Object.fromEntries(selection.toolkits)).toEqual({ pager: [], sheets: [] });
    expect(admitted("pager@eu+sheets@work/readonly")).toEqual(admitted("pager+sheets/readonly"));
    expect(admitted("marketing@us:segments,broadcasts")).toEqual(admitted("marketing:segments,broadcasts"));
    expect(urls.viewOf("pager@eu+sheets@work").accounts).toEqual({ pager: "eu", google: "work" });
    expect(urls.viewOf("marketing@acme-us.2:segments").accounts).toEqual({ marketing: "acme-us.2" });
    expect(admitted("pager%40eu")).toEqual(admitted("pager"));
  });

  it("names the accounts a path chooses by provider, for the consent page", () => {
    expect(accountsNamed("pager@eu+sheets@home:read/readonly", KITS)).toEqual({
      pager: "eu",
      google: "home",
    });
    expect(accountsNamed("pager+sheets", KITS)).toEqual({});
    expect(() => accountsNamed("pager@EU", KITS)).toThrow(SelectionError);
  });

  it("spells each choice once in its view id, and tells accounts apart", () => {
    const id = urls.viewOf("readonly/sheets@work+pager@eu").id;
    expect(id).toBe("url:pager@eu+sheets@work/readonly");
    expect(urls.viewOf("search/marketing@us:segments,broadcasts").id).toBe(
      "url:marketing@us:broadcasts,segments/search",
    );
    expect(urls.viewOf("pager@eu").id).not.toBe(urls.viewOf("pager@us").id);
    expect(urls.viewOf("pager@eu").id).not.toBe(urls.viewOf("pager").id);
  });

  it.each([
    ["pager@", "“” in “pager@” is not an account label"],
    ["pager@EU", "“EU” in “pager@EU” is not an account label"],
    ["pager@-eu", "is not an account label"],
    ["pager@eu@us", "“pager@eu@us” is not a toolkit"],
    ["@eu", "“@eu” is not a toolkit"],
    ["pager@eu+pager@us", "“pager” is named twice."],
    ["pager@a%2Fb", "is not an account label"],
  ])("refuses %s", (path, message) => {
    expect(() => parseSelection(path)).toThrow(SelectionError);
    expect(() => parseSelection(path)).toThrow(message);
  });

  it("carries the accounts through views that intersect, a later choice winning", () => {
    const scoped = within(
      scopesView(["pager.read"], () => []),
      urls.viewOf("pager@eu"),
    );
    expect(scoped.accounts).toEqual({ pager: "eu" });
    expect(within(urls.viewOf("pager@eu"), urls.viewOf("pager@us+sheets@me")).accounts).toEqual({
      pager: "us",
      google: "me",
    });
  });

  it("builds each account's registry on a host acting as that account", async () => {
    const chosen: unknown[] = [];
    const host: ChoosingHost = {
      secrets: () => undefined,
      tokens: async () => "base",
      settings: () => undefined,
      logger: { debug() {}, info() {}, warn() {}, error() {} } as unknown as Host["logger"],
      howToSupply: () => "",
      chooseAccounts: (choice) => {
        chosen.push(choice);
        return { tokens: async () => `chosen ${JSON.stringify(choice)}` };
      },
    };
    const registryOf = servedRegistries(
      { toolkits: KITS, tools: ALL },
      { catalog: "full", apps: "off", toolNames: "underscore" },
      host,
    );
    registryOf(urls.viewOf("pager@eu"));
    registryOf(urls.viewOf("pager"));
    registryOf(urls.viewOf("pager@eu"));
    expect(chosen).toEqual([{ pager: "eu" }]);
  });
});
