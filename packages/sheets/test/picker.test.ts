import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { text } from "node:stream/consumers";
import { memoryState, Secret, type StateStore } from "@toolkits/core";
import { useToolkitSandbox } from "@toolkits/core/testing";
import { CHROMIUM_ARGS, chromiumExecutable } from "@toolkits/testkit/chromium";
import { GOOGLE_API_SCRIPT_STUB } from "@toolkits/testkit/google-picker";
import { chromium } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { handlePickerRequest, PICKER_TTL_MS, sheetsToolkit } from "../src/index.js";
import { findPickerSession, openPickerSession, recordPick } from "../src/picker/session.js";
import { SANDBOX_TOKEN } from "../src/sandbox/index.js";
import { SHEETS } from "./kit.js";

const CLIENT_ID = "1234567890-abcdefghijklmnop.apps.googleusercontent.com";
const API_KEY = "AIzaSy-sandbox-picker-key";

/** The store the tools and the pages share; it reads the clock when asked, so fake timers apply. */
const state = memoryState(() => Date.now());
/** handlePickerRequest as the host calls it, with the tools' store. */
const serve = (request: Request) => handlePickerRequest(request, { state });

/** Serves handlePickerRequest over node:http, as the composed server mounts it. */
function pickerServer(): Server {
  return createServer(async (incoming, outgoing) => {
    const response =
      (await serve(toRequest(incoming, await text(incoming)))) ?? new Response(null, { status: 404 });
    outgoing.writeHead(response.status, Object.fromEntries(response.headers));
    outgoing.end(Buffer.from(await response.arrayBuffer()));
  });
}

function toRequest(incoming: IncomingMessage, body: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    for (const item of [value ?? []].flat()) headers.append(name, item);
  }
  const method = incoming.method ?? "GET";
  return new Request(`http://${incoming.headers.host}${incoming.url}`, {
    method,
    headers,
    body: method === "GET" || method === "HEAD" ? undefined : body,
  });
}

let server: Server;
let base: string;
const box = useToolkitSandbox(sheetsToolkit, { ...SHEETS, host: { state } });

beforeAll(async () => {
  server = pickerServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(() => {
  vi.useRealTimers();
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Sheets.GenerateFilePickerUrl on a server with the sandbox's Google token and `env`. */
const generate = (env: Record<string, string>) =>
  box.call("Sheets.GenerateFilePickerUrl", {}, { GOOGLE_ACCESS_TOKEN: SANDBOX_TOKEN, ...env });

const configured = () => ({
  GOOGLE_OAUTH_CLIENT_ID: CLIENT_ID,
  GOOGLE_PICKER_API_KEY: API_KEY,
  TOOLKITS_PUBLIC_URL: `${base}/`,
});

async function pickerUrl(env: Record<string, string> = configured()): Promise<string> {
  const result = await generate(env);
  expect(result.isError).toBe(false);
  return result.data?.url as string;
}

const pickRequest = (url: string, body: unknown) =>
  new Request(`${url}/picked`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
const post = (url: string, body: unknown) => serve(pickRequest(url, body));

describe("Sheets.GenerateFilePickerUrl", () => {
  it("names every missing setting", async () => {
    const result = await generate({});
    expect(result.text).toBe(
      "unauthenticated: The file picker is not configured: set GOOGLE_OAUTH_CLIENT_ID, GOOGLE_PICKER_API_KEY, TOOLKITS_PUBLIC_URL (the server's http(s) base URL) for the server and restart it.",
    );
    const noAppId = await generate({
      ...configured(),
      GOOGLE_OAUTH_CLIENT_ID: "my-client.apps.googleusercontent.com",
    });
    expect(noAppId.text).toBe(
      "unauthenticated: The file picker is not configured: set GOOGLE_PICKER_APP_ID (the client id does not start with a project number) for the server and restart it.",
    );
  });

  it("returns a short-lived link on the public URL that carries no token", async () => {
    const now = Date.now();
    const result = await generate(configured());
    expect(result.data?.url).toMatch(new RegExp(`^${base}/sheets/picker/[A-Za-z0-9_-]{32}$`));
    expect(result.data?.url).not.toContain(SANDBOX_TOKEN);
    expect(Date.parse(result.data?.expires_at as string) - now).toBeGreaterThanOrEqual(10 * 60_000 - 1_000);
    expect(result.data?.instructions).toContain("within 10 minutes");
    expect(result.data?.instructions).toContain("Sheets.SearchSpreadsheets");
  });
});

describe("handlePickerRequest", () => {
  it("leaves other paths to the caller and answers unknown sessions with 404", async () => {
    expect(await serve(new Request(`${base}/mcp`))).toBeUndefined();
    const unknown = await serve(new Request(`${base}/sheets/picker/AAAAAAAAAAAAAAAAAAAAAAAA`));
    expect(unknown?.status).toBe(404);
    expect(await unknown?.text()).toContain("This picker link has expired or does not exist");
  });

  it("serves the page with the token in its body only, uncached", async () => {
    const url = await pickerUrl();
    const page = await serve(new Request(url));
    expect(page?.status).toBe(200);
    expect(page?.headers.get("cache-control")).toBe("no-store");
    expect(page?.headers.get("referrer-policy")).toBe("no-referrer");
    expect(page?.headers.get("content-security-policy")).toBe("frame-ancestors 'none'");
    expect(page?.headers.get("x-frame-options")).toBe("DENY");
    const html = (await page?.text()) ?? "";
    expect(html).toContain(`"token":"${SANDBOX_TOKEN}"`);
    expect(html).toContain(`"appId":"1234567890"`);
    expect(html).toContain("https://apis.google.com/js/api.js");
    expect((await serve(new Request(`${url}/picked`)))?.status).toBe(405);
    expect((await serve(new Request(url, { method: "DELETE" })))?.status).toBe(405);
  });

  it("takes one well-formed pick, then serves no token again", async () => {
    const url = await pickerUrl();
    // A page elsewhere can post text/plain without asking: a pick must be declared JSON.
    const plain = new Request(`${url}/picked`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: JSON.stringify({ files: [{ id: "forged", name: "Forged" }] }),
    });
    expect((await serve(plain))?.status).toBe(415);
    expect((await post(url, { files: [] }))?.status).toBe(400);
    expect((await post(url, { files: [{ id: 7 }] }))?.status).toBe(400);
    const picked = await post(url, { files: [{ id: "abc", name: "Budget <2025>" }] });
    expect(picked?.status).toBe(200);
    expect(await picked?.json()).toEqual({
      files: [{ id: "abc", name: "Budget <2025>" }],
      message: "Done: the agent can now use this spreadsheet. You can return to your agent.",
    });
    expect((await post(url, { files: [{ id: "def", name: "Other" }] }))?.status).toBe(409);
    const after = (await (await serve(new Request(url)))?.text()) ?? "";
    expect(after).toContain("Budget &#60;2025&#62;");
    expect(after).not.toContain(SANDBOX_TOKEN);
  });

  it("expires links after 10 minutes", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const url = await pickerUrl();
    vi.setSystemTime(Date.now() + 10 * 60_000 + 1);
    expect((await serve(new Request(url)))?.status).toBe(404);
  });

  it("serves a link from any replica sharing the store, and records the pick there", async () => {
    // Two replicas of a server: this toolkit, and a fresh copy of the package's modules, so that
    // nothing outside the store they share (no module-level session) could carry the session.
    const shared = memoryState();
    vi.resetModules();
    const replica = (await import("../src/index.js")).sheetsToolkit;
    expect(replica).not.toBe(sheetsToolkit);
    const pages = (kit: typeof sheetsToolkit, store: StateStore) => (request: Request) =>
      kit.pages?.(request, { state: store });
    const first = pages(sheetsToolkit, shared);
    const second = pages(replica, shared);

    // The first replica's tool opens the session.
    const env = { ...box.env, GOOGLE_ACCESS_TOKEN: SANDBOX_TOKEN, ...configured() };
    const client = await box.connect(env, { state: shared });
    const url = (await client.call("Sheets.GenerateFilePickerUrl", {})).data?.url as string;
    const id = url.split("/").pop() as string;

    // Only a handler on the shared store knows it.
    expect((await serve(new Request(url)))?.status).toBe(404);
    const page = await second(new Request(url));
    expect(page?.status).toBe(200);
    expect(await page?.text()).toContain(`"token":"${SANDBOX_TOKEN}"`);

    // The second replica takes the pick; it is in the store, without the token, and both refuse another.
    expect((await second(pickRequest(url, { files: [{ id: "abc", name: "Budget" }] })))?.status).toBe(200);
    const record = await shared.get<Record<string, unknown>>(`sheets:picker:${id}`);
    expect(record?.picked).toEqual([{ id: "abc", name: "Budget" }]);
    expect(JSON.stringify(record)).not.toContain(SANDBOX_TOKEN);
    const again = { files: [{ id: "def", name: "Other" }] };
    for (const replicaPages of [first, second]) {
      expect((await replicaPages(pickRequest(url, again)))?.status).toBe(409);
      const after = (await (await replicaPages(new Request(url)))?.text()) ?? "";
      expect(after).toContain("Budget");
      expect(after).not.toContain(SANDBOX_TOKEN);
    }
  });
});

describe("picker sessions", () => {
  /** A store that also notes the time to live of every write. */
  function recordingState() {
    const store = memoryState();
    const ttls: number[] = [];
    const recording: StateStore = {
      ...store,
      set: (key, value, ttlMs) => {
        ttls.push(ttlMs);
        return store.set(key, value, ttlMs);
      },
    };
    return { store: recording, ttls };
  }

  it("keeps a session under sheets:picker:<id> for 10 minutes, and a pick for the rest of them", async () => {
    const { store, ttls } = recordingState();
    const token = new Secret("GOOGLE_ACCESS_TOKEN", "ya29.session-test-token");
    const session = await openPickerSession(store, { apiKey: API_KEY, appId: "42" }, token, 1_000);
    expect(session.expiresAt).toBe(1_000 + PICKER_TTL_MS);
    expect(await store.get(`sheets:picker:${session.id}`)).toEqual({
      id: session.id,
      config: { apiKey: API_KEY, appId: "42" },
      token: "ya29.session-test-token",
      expiresAt: 1_000 + PICKER_TTL_MS,
    });

    const found = await findPickerSession(store, session.id, 2_000);
    expect(found?.token).toBeInstanceOf(Secret);
    expect(found?.token.name).toBe("GOOGLE_ACCESS_TOKEN");
    expect(found?.token.reveal()).toBe("ya29.session-test-token");
    expect(await findPickerSession(store, session.id, 1_000 + PICKER_TTL_MS)).toBeUndefined();
    expect(await findPickerSession(store, "unknown-session-id-0000", 2_000)).toBeUndefined();

    await recordPick(store, session, [{ id: "abc", name: "Budget" }], 61_000);
    expect(ttls).toEqual([PICKER_TTL_MS, PICKER_TTL_MS - 60_000]);
    const picked = await findPickerSession(store, session.id, 62_000);
    expect(picked?.picked).toEqual([{ id: "abc", name: "Budget" }]);
    expect(picked?.token.reveal()).toBe("");
  });
});

describe("the picker page in headless Chromium", () => {
  let executablePath: string;
  // Finding the browser may mean installing one (minutes on a fresh machine), so it has its own limit.
  beforeAll(async () => {
    executablePath = await chromiumExecutable();
  }, 600_000);

  it("builds the Picker with the configured ids and token and reports the picked file", {
    timeout: 60_000,
  }, async () => {
    const url = await pickerUrl({ ...configured(), GOOGLE_PICKER_APP_ID: "987654321" });
    const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
    try {
      const context = await browser.newContext();
      const outside: string[] = [];
      await context.route("**/*", (route) => {
        const target = route.request().url();
        if (target.startsWith(base)) return route.continue();
        if (target === "https://apis.google.com/js/api.js") {
          return route.fulfill({ contentType: "text/javascript", body: GOOGLE_API_SCRIPT_STUB });
        }
        outside.push(target);
        return route.abort();
      });
      const page = await context.newPage();
      await page.goto(url);
      await page.getByText("You can return to your agent").waitFor();

      expect(await page.locator("#files li").allTextContents()).toEqual([
        "Quarterly report (quarterly-report-0)",
      ]);
      expect(
        await page.evaluate(
          () => (globalThis as unknown as { __picker: { calls: unknown[] } }).__picker.calls,
        ),
      ).toEqual([
        ["gapi.load", "picker"],
        ["setDeveloperKey", API_KEY],
        ["setAppId", "987654321"],
        ["setOAuthToken", SANDBOX_TOKEN],
        ["DocsView", "spreadsheets"],
        ["addView", "DocsView"],
        ["enableFeature", "multiselect"],
        ["setTitle", "Pick spreadsheets for your agent"],
        ["setCallback"],
        ["build"],
        ["setVisible", true],
      ]);
      expect(outside).toEqual([]);
      // The server kept the pick: the link now lists it and no longer opens the Picker.
      const after = (await (await serve(new Request(url)))?.text()) ?? "";
      expect(after).toContain("Quarterly report");
      expect(after).not.toContain(SANDBOX_TOKEN);
    } finally {
      await browser.close();
    }
  });
});
