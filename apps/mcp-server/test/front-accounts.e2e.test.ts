// The front page and /connect in headless Chromium for a person holding two PagerDuty accounts: a
// per-user server on loopback, the person signed in at the team's identity provider and connecting
// both accounts through the pages themselves. The front page offers a connector URL per account,
// each under a server name keeping Claude Code's mcp__<server>__<tool> within 64 characters beside
// the longest tool that URL serves (worked out here from the catalogue); /connect lists both labels,
// renames one and makes it the default, and the front page follows.
import { CHROMIUM_ARGS, chromiumExecutable } from "@toolkits/testkit/chromium";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appToolsFor } from "../src/apps.js";
import { parseSelection } from "../src/connectors/selection.js";
import { TOOLKITS } from "../src/toolkits.js";
import { INSTALL_TIMEOUT_MS } from "./team/debian.js";
import { type Deployment, startDeployment } from "./team/deployment.js";

/** Claude Code's limit on `mcp__<server>__<tool>`, as its model API enforces it. */
const CLAUDE_CODE_MAX = 64;

/**
 * The longest name, as clients see it, of the tools the connector URL `path` can list: its
 * toolkits' tools and the app-only tools of their MCP Apps views (listed to some clients too).
 */
function longestToolAt(path: string): string {
  const selection = parseSelection(path.replace(/^\/mcp\//, ""));
  const kits = [...selection.toolkits.keys()].map((id) => TOOLKITS[id]);
  expect(kits.length, path).toBeGreaterThan(0);
  const tools = kits.flatMap((kit) => kit?.tools ?? []);
  const names = [...tools, ...appToolsFor(tools, "declared")].map((tool) => tool.name.replace(".", "_"));
  return names.reduce((found, name) => (name.length > found.length ? name : found), "");
}

/** The rows of the front page's per-account table: URL, server name, what it acts as. */
async function accountRows(page: Page): Promise<{ url: string; name: string; what: string }[]> {
  const cells = await page
    .locator('section[aria-labelledby="accounts"] tbody tr')
    .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent ?? "")));
  return cells.map(([url = "", name = "", what = ""]) => ({
    url: url.replace(/\s*Copy$/, "").trim(),
    name: name.trim(),
    what: what.trim(),
  }));
}

describe("the front page and /connect of a person holding two PagerDuty accounts", () => {
  let d: Deployment;
  let chrome: Browser;
  beforeAll(async () => {
    const executablePath = await chromiumExecutable();
    [chrome, d] = await Promise.all([
      chromium.launch({ executablePath, args: CHROMIUM_ARGS }),
      startDeployment({ name: "front-accounts", replicas: 1, store: "file" }),
    ]);
  }, INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    await chrome?.close();
    await d?.stop();
  });

  it("offers a connector URL per account under a fitting server name, and renames and re-defaults an account at /connect", {
    timeout: 90_000,
  }, async () => {
    const context = await chrome.newContext();
    const allowed = [d.url, d.idp.url, d.pagerAuth.url];
    const outside: string[] = [];
    await context.route("**/*", (route) => {
      const target = route.request().url();
      if (allowed.some((base) => target.startsWith(base))) return route.continue();
      outside.push(target);
      return route.abort();
    });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    try {
      await page.goto(`${d.url}/`);
      await page.getByText("Signed in as").waitFor();
      // One account: no per-account URLs, the plain ones act as it.
      d.pagerAuth.signInAs("a");
      const labelShown = async () => {
        await page.getByText("Connected PagerDuty").waitFor();
        const shown = (await page.locator("body").textContent()) ?? "";
        return /labelled “([^”]+)”/.exec(shown)?.[1] ?? "";
      };
      await page.getByRole("link", { name: "Connect PagerDuty" }).click();
      const first = await labelShown();
      await page.goto(`${d.url}/`);
      expect(await accountRows(page)).toEqual([]);

      // A second account, connected from /connect.
      d.pagerAuth.signInAs("b");
      await page.goto(`${d.url}/connect`);
      await page.getByRole("link", { name: "Connect another PagerDuty account" }).click();
      const second = await labelShown();
      expect(new Set([first, second]).size, `${first}, ${second}`).toBe(2);

      await page.goto(`${d.url}/`);
      const rows = await accountRows(page);
      expect(rows.map((row) => row.url)).toEqual([
        `${d.url}/mcp/pager@${first}`,
        `${d.url}/mcp/pager@${second}`,
      ]);
      expect(rows[0]?.what).toContain(`PagerDuty account “${first}” (the default)`);
      expect(rows[1]?.what).toContain(`PagerDuty account “${second}”`);
      expect(rows[1]?.what).not.toContain("default");
      for (const row of rows) {
        const path = new URL(row.url).pathname;
        expect(row.name, path).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(row.name, path).toContain("pager");
        const longest = longestToolAt(path);
        expect(`mcp__${row.name}__${longest}`.length, `${row.name} beside ${longest}`).toBeLessThanOrEqual(
          CLAUDE_CODE_MAX,
        );
      }
      expect(new Set(rows.map((row) => row.name)).size).toBe(2);
      expect(await page.getByRole("button", { name: `Copy /mcp/pager@${second}` }).isVisible()).toBe(true);

      // /connect: both labels, the first the default.
      await page.goto(`${d.url}/connect`);
      const text = async () => (await page.locator("body").textContent()) ?? "";
      expect(await text()).toContain(`labelled “${first}”, the default`);
      expect(await text()).toContain(`labelled “${second}”, connected`);
      const item = (label: string) => page.locator("li").filter({ hasText: `labelled “${label}”` });
      await item(second)
        .getByLabel(/New label/)
        .fill("eu");
      await item(second).getByRole("button", { name: "Rename" }).click();
      await page.getByText(`Renamed your PagerDuty account “${second}” to “eu”.`).waitFor();
      expect(await text()).toContain("labelled “eu”, connected");
      expect(await text()).not.toContain(`labelled “${second}”`);

      await item("eu").getByRole("button", { name: "Make default" }).click();
      await page.getByText("Your PagerDuty account “eu” is now the default.").waitFor();
      expect(await text()).toContain("labelled “eu”, the default");
      expect(await text()).toContain(`labelled “${first}”, connected`);
      expect(await item("eu").getByRole("button", { name: "Make default" }).count()).toBe(0);

      // The front page follows: eu first, the default.
      await page.goto(`${d.url}/`);
      const after = await accountRows(page);
      expect(after.map((row) => row.url)).toEqual([`${d.url}/mcp/pager@eu`, `${d.url}/mcp/pager@${first}`]);
      expect(after[0]?.what).toContain("PagerDuty account “eu” (the default)");
      expect(after[0]?.name).toContain("eu");
      expect(errors).toEqual([]);
      expect(outside).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
