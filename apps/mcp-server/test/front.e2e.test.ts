// The front page (GET /) in headless Chromium, on loopback: a shared server's, and a per-user
// server's to a person signed in at the team's identity provider. Every client's snippet is there
// and its copy button copies it, each install link gives its client a config naming the right URL,
// axe-core finds no serious violation, and a screenshot of each is kept in test/artifacts/.
import { mkdirSync } from "node:fs";
import { envHost } from "@toolkits/core";
import { CHROMIUM_ARGS, chromiumExecutable } from "@toolkits/testkit/chromium";
import axe from "axe-core";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientPlans } from "../src/clients/fit.js";
import type { ClientAuth } from "../src/clients/index.js";
import { offeredUrls } from "../src/connectors/offer.js";
import { valuesOf } from "../src/options/setting.js";
import { SETTINGS } from "../src/options/table.js";
import { servedRegistries } from "../src/served.js";
import { TOOLKITS } from "../src/toolkits.js";
import { connectHttp, GENERATIONS, modernToolsList } from "./clients.js";
import { cursorInstall, vscodeInstall } from "./front-clients.js";
import { type RunningServer, startHttpServer } from "./spawn.js";
import { INSTALL_TIMEOUT_MS } from "./team/debian.js";
import { type Deployment, startDeployment } from "./team/deployment.js";

const ARTIFACTS = new URL("./artifacts/", import.meta.url);
const KITS = Object.values(TOOLKITS);
const TOOLS = KITS.flatMap((kit) => kit.tools);
const DEFAULTS = valuesOf(SETTINGS, (setting) => setting.default);
const URLS = offeredUrls(
  KITS,
  TOOLS,
  servedRegistries({ toolkits: KITS, tools: TOOLS }, DEFAULTS, envHost({})),
);
/** What a client declaring MCP Apps sends in its capabilities. */
const APPS = { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } };
const plansFor = (base: string, auth: ClientAuth) =>
  clientPlans({ base, auth, urls: URLS, toolNames: TOOLS.map((tool) => tool.name.replace(".", "_")) });

/** A page's global scope, as far as reading the clipboard goes (the tests' types have no DOM). */
type Clipboarded = { navigator: { clipboard: { readText(): Promise<string> } } };

let executablePath: string;
let chrome: Browser;
beforeAll(async () => {
  executablePath = await chromiumExecutable();
  chrome = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  mkdirSync(ARTIFACTS, { recursive: true });
}, INSTALL_TIMEOUT_MS);
afterAll(() => chrome?.close());

/** A context that may reach only `bases` and the clipboard, and a page recording its console errors. */
async function open(bases: string[], options: { javaScript?: boolean } = {}) {
  const context = await chrome.newContext({ javaScriptEnabled: options.javaScript ?? true });
  const [first = ""] = bases;
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: first });
  const outside: string[] = [];
  await context.route("**/*", (route) => {
    const target = route.request().url();
    if (bases.some((base) => target.startsWith(base))) return route.continue();
    outside.push(target);
    return route.abort();
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (message) => message.type() === "error" && errors.push(message.text()));
  page.on("pageerror", (error) => errors.push(error.message));
  return { context, page, errors, outside };
}

/** The serious and critical violations axe-core finds on the page. */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(axe.source);
  const results = await page.evaluate(() => (globalThis as unknown as { axe: typeof axe }).axe.run());
  return results.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id}: ${violation.help} (${violation.nodes.length})`);
}

describe("the front page of a shared server on loopback", () => {
  let server: RunningServer;
  let base: string;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  beforeAll(async () => {
    server = await startHttpServer(["--sandbox"]);
    base = server.url.replace(/\/mcp$/, "");
    ({ context, page, errors } = await open([base]));
    await page.goto(`${base}/`);
  });
  afterAll(async () => {
    await context?.close();
    await server?.stop();
  });

  it("shows every client's snippet, and each copy button copies it", async () => {
    const plans = plansFor(base, "none");
    expect(plans.map((plan) => plan.guide.id)).toEqual([
      "claude",
      "chatgpt",
      "vscode",
      "cursor",
      "claude-code",
      "gemini",
      "openai-agents",
    ]);
    for (const plan of plans) {
      for (const [index, snippet] of plan.snippets.entries()) {
        const shown = await page.locator(`#snippet-${plan.guide.id}-${index}`).textContent();
        expect(shown, `${plan.guide.title}: ${snippet.label}`).toBe(snippet.text);
        await page.getByRole("button", { name: `Copy ${snippet.label} for ${plan.guide.title}` }).click();
        const copied = await page.evaluate(() =>
          (globalThis as unknown as Clipboarded).navigator.clipboard.readText(),
        );
        expect(copied, `${plan.guide.title}: ${snippet.label} copied`).toBe(snippet.text);
      }
    }
    const claudeCode = await page.locator("#snippet-claude-code-0").textContent();
    expect(claudeCode).toBe(`claude mcp add --transport http toolkits ${base}/mcp`);
    expect(errors).toEqual([]);
  });

  it("gives each install link a config its client takes, naming the URL that fits the client", async () => {
    const links = await page
      .locator("a.install")
      .evaluateAll((anchors) =>
        anchors.map((anchor) => [
          anchor.getAttribute("data-client") ?? "",
          anchor.getAttribute("href") ?? "",
        ]),
      );
    const byClient = Object.fromEntries(links);
    expect(Object.keys(byClient).sort()).toEqual(["cursor", "vscode"]);
    // VS Code takes 128 tools per request; this server serves 138.
    expect(vscodeInstall(byClient.vscode)).toMatchObject({ name: "toolkits", url: `${base}/mcp/search` });
    expect(cursorInstall(byClient.cursor)).toMatchObject({ name: "toolkits", url: `${base}/mcp` });
  });

  it("lists the connector URLs, and the server's own upstream accounts with how to change them", async () => {
    const urls = await page.locator("table code").allTextContents();
    expect(urls).toEqual(URLS.map((url) => `${base}${url.path}`));
    const pager = page.locator('li[data-provider="pager"]');
    expect(await pager.textContent()).toBe("PagerDuty: Connected (the sandbox's fake account)\n");
  });

  it("counts at each URL the tools tools/list gives there, with and without the MCP Apps tools", async () => {
    const rows = await page
      .locator("table tbody tr")
      .evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent ?? "")),
      );
    expect(rows.length).toBeGreaterThanOrEqual(7);
    for (const [cell = "", , count = ""] of rows) {
      const url = cell.replace(/\s*Copy$/, "").trim();
      const [, plain, withApps = plain] = /^(\d+)(?: \((\d+) with MCP Apps tools\))?$/.exec(count) ?? [];
      const listed = async (capabilities?: Record<string, unknown>) =>
        ((await modernToolsList(url, capabilities)).tools as unknown[]).length;
      // 2026-07-28 clients say in every request whether they show views.
      expect(`${url}: ${await listed()}`).toBe(`${url}: ${plain}`);
      expect(`${url} to an MCP Apps client: ${await listed(APPS)}`).toBe(
        `${url} to an MCP Apps client: ${withApps}`,
      );
      // A 2025-11-25 client over stateless HTTP is told the views' tools, as the page's note says.
      const legacy = await connectHttp(GENERATIONS[0], url);
      expect(`${url} to a 2025-11-25 client: ${(await legacy.listTools()).length}`).toBe(
        `${url} to a 2025-11-25 client: ${withApps}`,
      );
      await legacy.close();
    }
    expect(await page.getByText("A count in brackets includes the app-only tools").count()).toBe(1);
  });

  it("passes axe-core with no serious violation, and is kept as a screenshot", async () => {
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: new URL("front-page-shared.png", ARTIFACTS).pathname, fullPage: true });
  });

  it("works without JavaScript, all but the copy buttons, which it then hides", async () => {
    const plain = await open([base], { javaScript: false });
    try {
      await plain.page.goto(`${base}/`);
      expect(await plain.page.locator("pre code").count()).toBeGreaterThanOrEqual(7);
      expect(await plain.page.locator("a.install").count()).toBe(2);
      expect(await plain.page.locator("button[data-copy]").first().isVisible()).toBe(false);
    } finally {
      await plain.context.close();
    }
  });

  it("answers with the /connect pages' security headers and a CSP allowing only its own script", async () => {
    const answer = await fetch(`${base}/`);
    expect(answer.headers.get("x-frame-options")).toBe("DENY");
    expect(answer.headers.get("cache-control")).toBe("no-store");
    // Same-origin, not no-referrer: a form post then carries the page's Origin, not `null`.
    expect(answer.headers.get("referrer-policy")).toBe("same-origin");
    const csp = answer.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'sha256-[\w+/=]+'(;|$)/);
    expect(csp).toContain("frame-ancestors 'none'");
  });
});

describe("the front page of a per-user server on loopback", () => {
  let d: Deployment;
  beforeAll(async () => {
    d = await startDeployment({ name: "front", replicas: 1, store: "file" });
  }, 120_000);
  afterAll(() => d?.stop());

  it("shows a person signed in at the identity provider their snippets and accounts, to connect and disconnect", {
    timeout: 60_000,
  }, async () => {
    const { context, page, errors, outside } = await open([d.url, d.idp.url, d.pagerAuth.url]);
    try {
      await page.goto(`${d.url}/`);
      await page.getByText("Signed in as").waitFor();
      expect(page.url()).toBe(`${d.url}/`);
      for (const plan of plansFor(d.url, "oauth"))
        for (const [index, snippet] of plan.snippets.entries())
          expect(await page.locator(`#snippet-${plan.guide.id}-${index}`).textContent()).toBe(snippet.text);
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: new URL("front-page-per-user.png", ARTIFACTS).pathname, fullPage: true });

      const pager = page.locator('li[data-provider="pager"]');
      expect(await pager.textContent()).toContain("Not connected");
      await page.getByRole("link", { name: "Connect PagerDuty" }).click();
      await page.getByText("Connected PagerDuty").waitFor();

      await page.goto(`${d.url}/`);
      expect(await pager.textContent()).toContain("Connected");
      await page.getByRole("button", { name: "Disconnect PagerDuty" }).click();
      await page.getByText("Disconnected PagerDuty").waitFor();
      await page.goto(`${d.url}/`);
      expect(await pager.textContent()).toContain("Not connected");
      expect(errors).toEqual([]);
      expect(outside).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe("the front page of a shared server, without a browser", () => {
  it("shows the server's own accounts as missing, with the commands and settings that add them", async () => {
    const server = await startHttpServer([], { XDG_CONFIG_HOME: "/nonexistent-config" });
    try {
      const text = (await (await fetch(server.url.replace(/\/mcp$/, "/"))).text()).replace(/<[^>]*>/g, "");
      expect(text).toContain("PagerDuty: Not connected");
      expect(text).toContain("toolkits-mcp login pager, toolkits-mcp logout pager");
      expect(text).toContain("Customer.io App API: Not connected");
      expect(text).toContain("MARKETING_API_KEY=… MARKETING_REGION=us|eu in the server&#39;s environment");
    } finally {
      await server.stop();
    }
  });

  it("is not there off loopback, where a shared server has no browser sign-in", async () => {
    const server = await startHttpServer(["--host", "0.0.0.0"], {
      MCP_HTTP_BEARER_TOKENS: "a-static-bearer-token-for-the-front-page-tests",
    });
    try {
      expect((await fetch(server.url.replace(/\/mcp$/, "/"))).status).toBe(404);
      expect((await fetch(server.url.replace(/\/mcp$/, "/icons/pager.svg"))).status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});
