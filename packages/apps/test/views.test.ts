import { ENDPOINTS, marketingToolkit } from "@toolkits/marketing";
import { pagerToolkit } from "@toolkits/pager";
import { sheetsToolkit } from "@toolkits/sheets";
import { describe, expect, it } from "vitest";
import { VIEWS, viewHtml } from "../src/index.js";

const TOOLS = new Set(
  [pagerToolkit, sheetsToolkit, marketingToolkit].flatMap((kit) => kit.tools.map((tool) => tool.name)),
);
const LIMIT_BYTES = 800 * 1024;

describe("the views catalogue", () => {
  it("names tools the toolkits serve, each shown by one view", () => {
    const shown = VIEWS.flatMap((view) => view.tools);
    for (const name of shown) expect(TOOLS.has(name), name).toBe(true);
    expect(new Set(shown).size).toBe(shown.length);
    expect(VIEWS.map((view) => view.uri)).toEqual(VIEWS.map((view) => `ui://toolkits/${view.id}`));
  });

  it("has the metrics view show every marketing tool that answers series per period", () => {
    // Delivery metrics, a campaign's journeys, or one series per link.
    const seriesFields = ["metric", "journey_metric", "links"];
    const answersSeries = ENDPOINTS.filter(
      (endpoint) =>
        typeof endpoint.response === "object" &&
        Object.keys(endpoint.response).some((field) => seriesFields.includes(field)),
    ).map((endpoint) => endpoint.name);
    expect(answersSeries).toHaveLength(15);
    const metrics = VIEWS.find((view) => view.id === "metrics");
    expect([...(metrics?.tools ?? [])].sort()).toEqual(answersSeries.sort());
  });

  it("has only read-only app-only tools, none of them a toolkit's own", () => {
    for (const tool of VIEWS.flatMap((view) => view.appTools)) {
      expect(tool.hints, tool.name).toMatchObject({ readOnly: true, destructive: false });
      expect(TOOLS.has(tool.name), tool.name).toBe(false);
    }
  });
});

describe("the built views", () => {
  for (const view of VIEWS) {
    it(`${view.id} is one self-contained HTML document within the size limit`, async () => {
      const html = await viewHtml(view);
      expect(html).toMatch(/^<!doctype html><html lang="en">/);
      expect(Buffer.byteLength(html)).toBeLessThan(LIMIT_BYTES);
      // Nothing to load: no external script, style sheet, image or frame.
      expect(html).not.toMatch(/<(script|link|img|iframe)[^>]+(src|href)=/i);
      // Upstream text is set as text only.
      const script = /<script>([\s\S]*)<\/script>/.exec(html)?.[1] ?? "";
      expect(script).not.toMatch(/\.innerHTML\s*=|insertAdjacentHTML|document\.write\(/);
    });
  }
});
