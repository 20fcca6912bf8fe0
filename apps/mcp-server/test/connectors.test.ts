import type { AnyToolDefinition } from "@toolkits/core";
import type { ToolRegistry } from "@toolkits/core/mcp";
import { describe, expect, it } from "vitest";
import { connectors, parseSelection, SelectionError } from "../src/connectors/selection.js";
import { TOOLKITS } from "../src/toolkits.js";
import { KEPT_VIEWS, registries, WHOLE, within } from "../src/views.js";

const KITS = Object.values(TOOLKITS);
const ALL = KITS.flatMap((kit) => kit.tools);
const urls = connectors(KITS, ALL);
const admitted = (path: string, tools = ALL) =>
  tools.filter(urls.viewOf(path).admits).map((tool) => tool.name);

describe("the connector URL grammar", () => {
  it("reads toolkits, toolsets, readonly and search, in any order", () => {
    const selection = parseSelection("search/marketing:segments,broadcasts+pager/readonly");
    expect(Object.fromEntries(selection.toolkits)).toEqual({
      marketing: ["segments", "broadcasts"],
      pager: [],
    });
    expect(selection).toMatchObject({ readOnly: true, search: true });
  });

  it("takes percent-encoded parts", () => {
    expect(admitted("marketing%3Asegments")).toEqual(admitted("marketing:segments"));
  });

  it.each([
    ["pager//readonly", "no empty part"],
    ["pager/", "no empty part"],
    ["pager/readonly/readonly", "“readonly” repeats the readonly part."],
    ["pager/sheets", "“sheets” repeats the toolkits part."],
    ["pager+pager", "“pager” is named twice."],
    ["Pager", "“Pager” is not a toolkit"],
    ["marketing:segments:x", "“marketing:segments:x” is not a toolkit"],
    ["marketing:", "“marketing:” is not a toolkit"],
    ["pager%zz", "“pager%zz” is not valid percent-encoding."],
  ])("refuses %s", (path, message) => {
    expect(() => parseSelection(path)).toThrow(SelectionError);
    expect(() => parseSelection(path)).toThrow(message);
  });
});

describe("a connector URL's view", () => {
  it("admits what its selection names", () => {
    expect(admitted("pager")).toEqual(TOOLKITS.pager?.tools.map((tool) => tool.name));
    expect(admitted("marketing:segments").every((name) => /Segment/.test(name))).toBe(true);
    const readOnly = admitted("marketing/readonly");
    expect(readOnly.length).toBeGreaterThan(0);
    expect(ALL.filter((tool) => readOnly.includes(tool.name)).every((tool) => tool.hints.readOnly)).toBe(
      true,
    );
    expect(admitted("search")).toEqual(ALL.map((tool) => tool.name));
    expect(urls.viewOf("search").catalog).toBe("search");
    expect(urls.viewOf("pager").catalog).toBeUndefined();
  });

  it("has one id for every spelling of the same selection, and another for each other selection", () => {
    const id = (path: string) => urls.viewOf(path).id;
    expect(id("readonly/marketing:segments,broadcasts+pager")).toBe(
      id("pager+marketing:broadcasts,segments/readonly"),
    );
    const ids = ["pager", "pager/readonly", "pager/search", "sheets", "pager+sheets", "search"].map(id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).not.toContain(WHOLE.id);
  });

  it("narrows the server's own selection and never widens it", () => {
    const readOnly = ALL.filter((tool) => tool.hints.readOnly);
    const narrow = connectors(
      KITS.filter((kit) => kit.id !== "sheets"),
      readOnly.filter((tool) => !tool.name.startsWith("Sheets.")),
    );
    const segments = ALL.filter(narrow.viewOf("marketing:segments").admits);
    expect(segments.length).toBeGreaterThan(0);
    expect(segments.every((tool) => tool.hints.readOnly)).toBe(true);
    expect(() => narrow.viewOf("sheets")).toThrow(
      "This server serves no toolkit “sheets”; it serves pager, marketing.",
    );
  });

  it("is refused when it leaves no tool, or names a toolset the server does not serve", () => {
    const writes = ALL.filter((tool) => tool.name === "MarketingApi.CreateManualSegment");
    const onlyWrites = connectors(KITS, writes);
    expect(() => onlyWrites.viewOf("marketing/readonly")).toThrow("/mcp/marketing/readonly leaves no tool");
    expect(() => onlyWrites.viewOf("marketing:broadcasts")).toThrow(
      "This server serves no toolset “broadcasts” of marketing; it serves segments.",
    );
  });

  it("narrows further within a token's view, as views intersect", () => {
    const pagerOnly = {
      id: "token:pager",
      admits: (tool: AnyToolDefinition) => tool.name.startsWith("Pager."),
    };
    const both = within(urls.viewOf("pager+sheets"), pagerOnly);
    expect(ALL.filter(both.admits).map((tool) => tool.name)).toEqual(admitted("pager"));
  });
});

describe("the registries of views", () => {
  const counting = () => {
    const built: number[] = [];
    const registryOf = registries(ALL, (tools) => {
      built.push(tools.length);
      return { listing: [] } as unknown as ToolRegistry;
    });
    return { built, registryOf };
  };

  it("builds each view's once, and the whole view's for good", () => {
    const { built, registryOf } = counting();
    const pager = urls.viewOf("pager");
    expect(registryOf(pager)).toBe(registryOf(urls.viewOf("pager")));
    expect(registryOf(WHOLE)).toBe(registryOf(WHOLE));
    expect(built).toEqual([TOOLKITS.pager?.tools.length, ALL.length]);
  });

  it(`keeps the ${KEPT_VIEWS} most recently used narrowed views`, () => {
    const { built, registryOf } = counting();
    const view = (n: number) => ({ id: `test:${n}`, admits: () => true });
    const first = registryOf(view(0));
    for (let n = 1; n < KEPT_VIEWS; n++) registryOf(view(n));
    expect(registryOf(view(0))).toBe(first);
    registryOf(view(KEPT_VIEWS));
    expect(registryOf(view(0))).toBe(first);
    expect(built).toHaveLength(KEPT_VIEWS + 1);
    registryOf(view(1));
    expect(built).toHaveLength(KEPT_VIEWS + 2);
  });
});
