// A headless test host for MCP Apps views: Chromium (playwright-core) shows the host page
// (host-page.ts, bundled here), which loads a view from the server's resources/read into a sandboxed
// frame and hands every tool call the view makes to a real MCP client of the server. It records
// what a real host would see: calls, model-context updates, links opened, every request the
// browser makes and every console line.
import { mkdirSync } from "node:fs";
import type { McpUiHostContext, McpUiResourceCsp } from "@modelcontextprotocol/ext-apps/app-bridge";
import { CHROMIUM_ARGS, chromiumExecutable } from "@toolkits/testkit/chromium";
import { build } from "esbuild";
import { type Browser, type BrowserContext, chromium, type FrameLocator, type Page } from "playwright-core";
import type { AppsClient } from "./clients.js";

/** The host page's origin; it exists only inside the browser's routes. */
const HOST = "http://host.test/";
/** Where the screenshots go: the README's images with TOOLKITS_UPDATE_SCREENSHOTS=1, else test artifacts. */
export const SCREENSHOTS = process.env.TOOLKITS_UPDATE_SCREENSHOTS
  ? new URL("../../docs/apps/", import.meta.url)
  : new URL("./artifacts/", import.meta.url);

/** What the host page (host-page.ts) is given to show a view. */
export interface Mount {
  html: string;
  csp: McpUiResourceCsp | undefined;
  args: Record<string, unknown>;
  result: Record<string, unknown>;
  context: McpUiHostContext;
}

/** The host page's functions, as Playwright reaches them. */
type HostPage = {
  mount(mount: Mount): Promise<void>;
  context(change: McpUiHostContext): void;
  teardown(): Promise<void>;
};

/** A light and a dark host, as their style variables would paint them. */
export const THEMES = {
  light: { theme: "light", timeZone: "Asia/Tokyo", locale: "en-GB" },
  dark: { theme: "dark", timeZone: "Asia/Tokyo", locale: "en-GB" },
} satisfies Record<string, McpUiHostContext>;

async function hostPage(): Promise<string> {
  const { outputFiles } = await build({
    entryPoints: [new URL("./host-page.ts", import.meta.url).pathname],
    bundle: true,
    format: "iife",
    platform: "browser",
    write: false,
    logLevel: "warning",
  });
  const script = outputFiles[0]?.text.replace(/<\/script/gi, "<\\/script") ?? "";
  return `<!doctype html><html><head><meta charset="utf-8"><style>body{margin:0;background:#888}iframe{display:block;width:560px;border:0}</style></head><body><script>${script}</script></body></html>`;
}

/** One browser for a test file, with the host page built once. */
export interface Chromium {
  open(client: AppsClient, options?: HostOptions): Promise<Host>;
  close(): Promise<void>;
}

export interface HostOptions {
  /** Origins (beyond the host's) the browser may reach: the server's picker page. */
  allow?: string[];
  /** Answers for URLs no route may reach: Google's picker script. */
  fulfil?: Record<string, string>;
}

/** A view shown in the test host. */
export interface Host {
  page: Page;
  /** The view's frame. */
  view: FrameLocator;
  /** Tool calls the view made, by name, with their arguments. */
  calls: { name: string; arguments?: Record<string, unknown> }[];
  /** Texts the view gave the model with updateModelContext. */
  modelContext: string[];
  /** URLs the view asked the host to open. */
  links: string[];
  /** Requests any frame of the view made (none may leave it), and every console line. */
  viewRequests: string[];
  console: string[];
  /** Shows the result of `tool` with `args` (called on the server) in its view. */
  show(tool: string, args: Record<string, unknown>, context?: McpUiHostContext): Promise<void>;
  /** Changes the host context, as a host does when its theme changes. */
  context(context: McpUiHostContext): Promise<void>;
  /** Moves the view out of the browser's viewport (`away`) or back, as scrolling the chat would. */
  scrollAway(away: boolean): Promise<void>;
  /** Tears the view down, as a host does before removing it. */
  teardown(): Promise<void>;
  /** Saves a picture of the view as `<name>.png`. */
  screenshot(name: string): Promise<void>;
  /** Runs `then` when the view opens a link (the picker page). */
  onLink(then: (url: string, context: BrowserContext) => Promise<void>): void;
  close(): Promise<void>;
}

export async function startChromium(): Promise<Chromium> {
  const [executablePath, page] = await Promise.all([chromiumExecutable(), hostPage()]);
  const browser: Browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  return {
    open: (client, options) => openHost(browser, page, client, options ?? {}),
    close: () => browser.close(),
  };
}

async function openHost(
  browser: Browser,
  html: string,
  client: AppsClient,
  options: HostOptions,
): Promise<Host> {
  const context = await browser.newContext({ viewport: { width: 600, height: 900 } });
  const page = await context.newPage();
  const host: Pick<Host, "calls" | "modelContext" | "links" | "viewRequests" | "console"> = {
    calls: [],
    modelContext: [],
    links: [],
    viewRequests: [],
    console: [],
  };
  let linkOpened: ((url: string, context: BrowserContext) => Promise<void>) | undefined;
  const outside: string[] = [];
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url === HOST) return route.fulfill({ contentType: "text/html", body: html });
    const fulfil = options.fulfil?.[url];
    if (fulfil) return route.fulfill({ contentType: "text/javascript", body: fulfil });
    if (options.allow?.some((origin) => url.startsWith(origin))) return route.continue();
    outside.push(url);
    return route.abort();
  });
  page.on("request", (request) => {
    if (request.frame() !== page.mainFrame()) host.viewRequests.push(request.url());
  });
  page.on("console", (message) => host.console.push(message.text()));
  page.on("pageerror", (error) => host.console.push(`pageerror: ${error.message}`));
  await page.exposeFunction(
    "hostCall",
    async (params: { name: string; arguments?: Record<string, unknown> }) => {
      host.calls.push({ name: params.name, arguments: params.arguments });
      return client.call(params.name, params.arguments ?? {});
    },
  );
  await page.exposeFunction("hostRecord", (kind: string, params: { content?: { text?: string }[] }) => {
    if (kind === "context")
      host.modelContext.push((params.content ?? []).map((block) => block.text ?? "").join("\n"));
  });
  await page.exposeFunction("hostOpenLink", async (url: string) => {
    host.links.push(url);
    await linkOpened?.(url, context);
  });
  await page.goto(HOST);
  const tools = await client.tools();
  return {
    ...host,
    page,
    view: page.frameLocator("#view"),
    async show(tool, args, hostContext = THEMES.light) {
      const listed = tools.find((entry) => entry.name === tool);
      const uri = listed?._meta?.ui?.resourceUri;
      if (!uri) throw new Error(`${tool} names no view`);
      const [resource] = await client.read(uri);
      const result = await client.call(tool, args);
      const mount: Mount = {
        html: resource?.text ?? "",
        csp: (resource?._meta?.ui as { csp?: Mount["csp"] } | undefined)?.csp,
        args,
        result: result as Record<string, unknown>,
        context: {
          ...hostContext,
          toolInfo: { tool: listed as never },
          availableDisplayModes: ["inline", "fullscreen"],
          displayMode: "inline",
        },
      };
      // Typed loosely: Playwright's check of serializable arguments does not end on MCP's types.
      await page.evaluate(
        (value: unknown) => (globalThis as unknown as HostPage).mount(value as Mount),
        mount as unknown,
      );
    },
    async context(change) {
      await page.evaluate(
        (value: unknown) => (globalThis as unknown as HostPage).context(value as McpUiHostContext),
        change as unknown,
      );
    },
    async scrollAway(away) {
      await page.locator("#view").evaluate(
        (frame, margin) => {
          (frame as unknown as { style: { marginTop: string } }).style.marginTop = margin;
        },
        away ? "5000px" : "0px",
      );
    },
    async teardown() {
      await page.evaluate(() => (globalThis as unknown as HostPage).teardown());
    },
    async screenshot(name) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.locator("#view").screenshot({ path: new URL(`${name}.png`, SCREENSHOTS).pathname });
    },
    onLink(then) {
      linkOpened = then;
    },
    async close() {
      await context.close();
      if (outside.length) throw new Error(`requests left the machine: ${outside.join(", ")}`);
    },
  };
}
