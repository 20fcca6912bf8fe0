// The views in headless Chromium, each fed a real tool result from the server on --sandbox by a
// test host built on ext-apps' AppBridge, which hands the view's own calls back to the server.
// Each test also checks what a host would: no request leaves the view, and its console shows no
// CSP refusal. The screenshots (light and dark) are the README's images.
import { GOOGLE_API_SCRIPT_STUB, STUB_PICKED_FILE } from "@toolkits/testkit/google-picker";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startHttpServer } from "../spawn.js";
import { type AppsClient, appsClient, RENDERS_VIEWS } from "./clients.js";
import { type Chromium, type Host, startChromium, THEMES } from "./host.js";

const GOOGLE_API_SCRIPT = "https://apis.google.com/js/api.js";
/** The sandbox's spreadsheets (packages/sheets/src/sandbox/state.ts). */
const QUARTERLY_REPORT = "quarterly-report-0";
const LARGE_EXPORT = "large-export-12";

let server: RunningServer;
let client: AppsClient;
let chromium: Chromium;
let host: Host;

beforeAll(async () => {
  [server, chromium] = await Promise.all([startHttpServer(["--sandbox"]), startChromium()]);
  client = await appsClient("v2", { url: server.url }, RENDERS_VIEWS);
}, 600_000);
afterAll(async () => {
  await client?.close();
  await Promise.all([chromium?.close(), server?.stop()]);
});
afterEach(async () => {
  expect(host.viewRequests, "requests made by the view").toEqual([]);
  expect(host.console.filter((line) => /Refused to|Content Security Policy|pageerror/i.test(line))).toEqual(
    [],
  );
  await host.close();
});

const open = async (options?: Parameters<Chromium["open"]>[1]) => {
  host = await chromium.open(client, options);
  return host;
};

/** The view's background colour, as Chromium paints it. */
const background = (h: Host) =>
  h.view
    .locator("body")
    .evaluate(
      (body) =>
        (
          globalThis as unknown as { getComputedStyle(element: unknown): { backgroundColor: string } }
        ).getComputedStyle(body).backgroundColor,
    );

describe("the incidents view", () => {
  it("shows Pager_ListIncidents as rows, opens a row's detail through Pager_GetIncident, and follows the host's theme", async () => {
    const h = await open();
    await h.show("Pager_ListIncidents", { limit: 5 });
    const rows = h.view.locator("tr.row");
    await expect.poll(() => rows.count()).toBe(5);
    const listed = (await client.call("Pager_ListIncidents", { limit: 5 })).structuredContent as {
      incidents: { id: string; number: number; title: string; html_url: string }[];
    };
    const first = listed.incidents[0];
    expect(await rows.first().textContent()).toContain(first?.title);
    await h.screenshot("incidents-light");
    const light = await background(h);
    await h.context(THEMES.dark);
    await expect.poll(() => background(h)).not.toBe(light);
    await h.screenshot("incidents-dark");

    await rows.first().click();
    await h.view.locator(".detail").waitFor();
    expect(h.calls).toContainEqual({ name: "Pager_GetIncident", arguments: { incident_id: first?.id } });
    expect(await h.view.locator(".detail h2").textContent()).toContain(first?.title);
    await expect.poll(() => h.modelContext.at(-1)).toContain(`#${first?.number}`);
    await h.view.getByRole("button", { name: "Open in PagerDuty" }).click();
    await expect.poll(() => h.links).toEqual([first?.html_url]);
  });
});

describe("the on-call view", () => {
  it("shows who holds each level of each policy until when, in the host's time zone", async () => {
    const h = await open();
    await h.show("Pager_ListOnCalls", {});
    await h.view.locator(".policy").first().waitFor();
    expect(await h.view.locator(".policy h2").first().textContent()).toBe("Payments Escalation");
    // The sandbox's Payments Primary shift ends 2026-11-26T00:00Z: 09:00 in Tokyo.
    expect(await h.view.locator(".policy").first().textContent()).toMatch(
      /Level 1Avery Quinn.*until .*09:00/,
    );
    expect(await h.view.locator(".zone").textContent()).toBe("Times in Asia/Tokyo.");
    await h.screenshot("oncall-light");
    await h.context({ ...THEMES.dark, timeZone: "UTC" });
    await expect.poll(() => h.view.locator(".zone").textContent()).toBe("Times in UTC.");
    expect(await h.view.locator(".policy").first().textContent()).toMatch(/until .*00:00/);
    await h.context(THEMES.dark);
    await h.screenshot("oncall-dark");
  });

  it("shows Pager_WhoAmI as the person's own shifts", async () => {
    const h = await open();
    await h.show("Pager_WhoAmI", {});
    await h.view.getByText("On call now").waitFor();
    expect(await h.view.locator("h2").textContent()).toBe("Avery Quinn");
  });
});

describe("the sheet grid", () => {
  it("labels the result's A1 range, pages by calling the tool again, and tells the model a selection as a range", async () => {
    const h = await open();
    await h.show("Sheets_GetSpreadsheet", { spreadsheet_id: LARGE_EXPORT, max_rows: 20, max_cols: 10 });
    const grid = h.view.locator("table.grid");
    await grid.waitFor();
    // The result's range is 'Export'!A1:J20: columns A to J, rows 1 to 20.
    expect(await grid.locator("th.col").allTextContents()).toEqual([..."ABCDEFGHIJ"]);
    expect(await grid.locator("th.rownum").allTextContents()).toEqual(
      Array.from({ length: 20 }, (_, i) => String(i + 1)),
    );
    expect(await grid.locator('td[data-cell="C7"]').textContent()).toBe("row 7 column 3 text");

    await h.view.getByRole("button", { name: "Next rows" }).click();
    await expect.poll(() => grid.locator("th.rownum").first().textContent()).toBe("21");
    expect(h.calls.at(-1)).toMatchObject({
      name: "Sheets_GetSpreadsheet",
      arguments: { spreadsheet_id: LARGE_EXPORT, start_row: 21, start_col: "A", max_rows: 20, max_cols: 10 },
    });
    expect(await grid.locator("th.rownum").last().textContent()).toBe("40");
    expect(await grid.locator('td[data-cell="A21"]').textContent()).toBe("row 21 column 1 text");

    await grid.locator('td[data-cell="B22"]').hover();
    await h.page.mouse.down();
    await grid.locator('td[data-cell="D25"]').hover();
    await h.page.mouse.up();
    await expect
      .poll(() => h.modelContext.at(-1))
      .toBe(`In spreadsheet ${LARGE_EXPORT}, the user selected 'Export'!B22:D25 in the grid view.`);
    expect(h.modelContext.join("\n")).not.toContain("column");
  });

  it("shows formatted values, with the value as entered on hover", async () => {
    const h = await open();
    await h.show("Sheets_GetSpreadsheet", { spreadsheet_id: QUARTERLY_REPORT, max_rows: 6, max_cols: 4 });
    const total = h.view.locator('td[data-cell="B4"]');
    await total.waitFor();
    expect(await total.getAttribute("title")).toBe("=SUM(B2:B3)");
    expect(await total.textContent()).toBe("2000");
    await h.screenshot("grid-light");
    await h.context(THEMES.dark);
    await expect.poll(() => background(h)).toBe("rgb(31, 31, 31)");
    await h.screenshot("grid-dark");
  });
});

describe("the Drive picker view", () => {
  it("opens the picker page through the host, follows the pick with the app-only status tool, and names the file to the model", async () => {
    const origin = new URL(server.url).origin;
    const h = await open({ allow: [origin], fulfil: { [GOOGLE_API_SCRIPT]: GOOGLE_API_SCRIPT_STUB } });
    // The host opens links in the person's browser: here, a new tab of the same browser.
    h.onLink(async (url, browser) => {
      const tab = await browser.newPage();
      await tab.goto(url);
    });
    await h.show("Sheets_GenerateFilePickerUrl", {});
    await h.view.getByRole("button", { name: "Choose in Drive" }).waitFor();
    await h.screenshot("picker-light");
    await h.context(THEMES.dark);
    await h.screenshot("picker-dark");
    await h.view.getByRole("button", { name: "Choose in Drive" }).click();
    await h.view.getByText(STUB_PICKED_FILE.name).waitFor({ timeout: 20_000 });
    expect(h.links).toHaveLength(1);
    expect(h.links[0]).toMatch(new RegExp(`^${origin}/sheets/picker/[\\w-]+$`));
    expect(h.calls.map((call) => call.name)).toContain("Sheets_GetFilePickerStatus");
    await expect
      .poll(() => h.modelContext.at(-1))
      .toContain(`${STUB_PICKED_FILE.name} (id ${STUB_PICKED_FILE.id})`);
  });
});

describe("polling from a view (the picker's status; the incidents' refresh alike)", () => {
  const statusCalls = (h: Host) =>
    h.calls.filter((call) => call.name === "Sheets_GetFilePickerStatus").length;
  const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it("pauses while the view is off screen, resumes on screen, and stops at teardown", {
    timeout: 60_000,
  }, async () => {
    const h = await open();
    // No link opens: the pick never comes, so the view keeps asking every 2 s.
    await h.show("Sheets_GenerateFilePickerUrl", {});
    await h.view.getByRole("button", { name: "Choose in Drive" }).click();
    await expect.poll(() => statusCalls(h), { timeout: 10_000 }).toBeGreaterThanOrEqual(2);

    await h.scrollAway(true);
    await wait(2_500);
    const away = statusCalls(h);
    await wait(5_000);
    expect(statusCalls(h)).toBe(away);

    await h.scrollAway(false);
    await expect.poll(() => statusCalls(h), { timeout: 10_000 }).toBeGreaterThan(away);
    await h.teardown();
    await wait(2_500);
    const tornDown = statusCalls(h);
    await wait(5_000);
    expect(statusCalls(h)).toBe(tornDown);
  });
});

describe("the metrics view", () => {
  it("draws one point per period of a metrics tool's series", async () => {
    const h = await open();
    await h.show("MarketingApi_GetCampaignLinkMetrics", { campaign_identifier: 1, report_time_unit: "days" });
    const chart = h.view.locator("figure.chart");
    // A point is a zero-length line with a round cap: attached, but with no box to be "visible".
    await chart.locator("svg .ct-point").first().waitFor({ state: "attached" });
    // The sandbox's link metrics: clicked [1, 3, 5, 7] over four days, one series.
    expect(await chart.getAttribute("data-points")).toBe("4");
    expect(await chart.locator(".ct-point").count()).toBe(4);
    expect(await chart.locator(".ct-line").count()).toBe(1);
    expect(await h.view.locator("figcaption").textContent()).toBe("4 days, oldest first");
    expect(await h.view.locator(".totals").textContent()).toContain("16");
    await h.screenshot("metrics-light");
    await h.context(THEMES.dark);
    await h.screenshot("metrics-dark");
  });

  // The sandbox's answers: delivery metrics are 24 series of one period each (six drawn, the
  // largest), a campaign's journeys 7 series of one step, a link's clicks [1, 3, 5, 7].
  it.each([
    [
      "MarketingApi_GetCampaignActionMetrics",
      { campaign_id: 1, action_identifier: 1, metrics_api_version: "2", metrics_resolution: "weekly" },
      "1 week",
      6,
      24,
    ],
    [
      "MarketingApi_GetCampaignActionLinkMetrics",
      { campaign_id: 1, action_identifier: 1, report_time_unit: "hours" },
      "4 hours",
      1,
      1,
    ],
    [
      "MarketingApi_GetCampaignJourneyMetrics",
      {
        campaign_id: 1,
        start_timestamp: 1_767_225_600,
        end_timestamp: 1_769_904_000,
        metrics_resolution: "monthly",
      },
      "1 month",
      6,
      7,
    ],
    [
      "MarketingApi_GetBroadcastLinkMetrics",
      { broadcast_identifier: 1, report_period: "weeks" },
      "4 weeks",
      1,
      1,
    ],
    [
      "MarketingApi_GetBroadcastActionMetrics",
      { broadcast_identifier: 1, lookup_action_id: 1, time_unit_for_report: "days" },
      "1 day",
      6,
      24,
    ],
    [
      "MarketingApi_GetBroadcastActionLinkMetrics",
      { broadcast_identifier: 1, broadcast_action_id: 1, time_period_unit: "days" },
      "4 days",
      1,
      1,
    ],
    [
      "MarketingApi_GetNewsletterVariantMetrics",
      { newsletter_identifier: 1, newsletter_message_id: 1, reporting_period_unit: "months" },
      "1 month",
      6,
      24,
    ],
    [
      "MarketingApi_GetNewsletterVariantClickMetrics",
      { newsletter_identifier: 1, message_content_identifier: 1, time_unit_for_report: "days" },
      "4 days",
      1,
      1,
    ],
  ] as const)(
    "draws %s's series, in the periods its arguments name",
    async (tool, args, periods, lines, totals) => {
      const h = await open();
      await h.show(tool, args);
      const chart = h.view.locator("figure.chart");
      await chart.locator("svg .ct-point").first().waitFor({ state: "attached" });
      expect(await h.view.locator("figcaption").textContent()).toBe(`${periods}, oldest first`);
      expect(await chart.getAttribute("data-points")).toBe(periods.split(" ")[0]);
      expect(await chart.locator(".ct-line").count()).toBe(lines);
      expect(await h.view.locator(".totals tr").count()).toBe(totals);
    },
  );
});
