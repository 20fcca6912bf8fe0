// The views in per-user mode: two people, each with their own PagerDuty account, see their own
// incidents in the incidents view, and the view's own calls (a row's detail, the app-only refresh)
// act as the person whose client shows it. Built server, file store, the team's mock identity
// provider and fake upstreams, headless Chromium.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browser } from "../team/browser.js";
import { bearerOf, callAs, connectLinkIn } from "../team/calls.js";
import { INSTALL_TIMEOUT_MS } from "../team/debian.js";
import { type Deployment, startDeployment } from "../team/deployment.js";
import { personData } from "../team/upstreams.js";
import { type AppsClient, appsClient, RENDERS_VIEWS } from "./clients.js";
import { type Chromium, startChromium } from "./host.js";

const PEOPLE = ["alice", "bob"] as const;

describe("views in per-user mode", () => {
  let d: Deployment;
  let chromium: Chromium;
  const clients = new Map<string, AppsClient>();

  beforeAll(async () => {
    [d, chromium] = await Promise.all([
      startDeployment({ name: "apps", replicas: 1, store: "file" }),
      startChromium(),
    ]);
    for (const person of PEOPLE) {
      const link = connectLinkIn(d, await callAs(d, person, "Pager_WhoAmI"), "pager");
      expect((await browser({ user: person }).open(link)).text).toContain("Connected PagerDuty");
      const headers = { authorization: `Bearer ${await bearerOf(d, person)}` };
      clients.set(person, await appsClient("v2", { url: `${d.url}/mcp`, headers }, RENDERS_VIEWS));
    }
  }, INSTALL_TIMEOUT_MS + 600_000);
  afterAll(async () => {
    for (const client of clients.values()) await client.close();
    await Promise.all([chromium?.close(), d?.stop()]);
  });

  it("shows each person only their own incidents, and the view's calls act as them", {
    timeout: 60_000,
  }, async () => {
    for (const person of PEOPLE) {
      const other = PEOPLE.find((name) => name !== person) ?? "";
      const mine = personData(person);
      const host = await chromium.open(clients.get(person) as AppsClient);
      try {
        await host.show("Pager_ListIncidents", {});
        const rows = host.view.locator("tr.row");
        await expect.poll(() => rows.count()).toBe(mine.incidentIds.length);
        const shown = (await rows.allTextContents()).join("\n");
        for (const title of mine.incidentTitles) expect(shown).toContain(title);
        for (const title of personData(other).incidentTitles) expect(shown).not.toContain(title);

        await rows.first().click();
        await host.view.locator(".detail").waitFor();
        expect(await host.view.locator(".detail h2").textContent()).toContain(mine.incidentTitles[0]);
        const asked = d.upstreams
          .of("pagerduty")
          .filter((request) => request.path === `/incidents/${mine.incidentIds[0]}`);
        expect(asked.map((request) => request.person)).toEqual([person]);
        expect(host.viewRequests).toEqual([]);
      } finally {
        await host.close();
      }
    }
  });
});
