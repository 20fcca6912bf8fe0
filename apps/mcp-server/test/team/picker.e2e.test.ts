// The sheets file picker in per-user mode, against the built server (file store), with the team's
// mock identity provider and a real headless Chromium: a picker link serves its person's Google
// token only to a browser signed in as that person, and takes picks only from such a browser.
// The person is the mock's default user, whom Chromium signs in as (it cannot name another: a
// browser route sees no request a redirect makes).
import { CHROMIUM_ARGS, chromiumExecutable } from "@toolkits/testkit/chromium";
import { GOOGLE_API_SCRIPT_STUB, STUB_PICKED_FILE } from "@toolkits/testkit/google-picker";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browser } from "./browser.js";
import { callAs, connectLinkIn } from "./calls.js";
import { INSTALL_TIMEOUT_MS } from "./debian.js";
import { type Deployment, startDeployment } from "./deployment.js";
import { MOCK_DEFAULT_USER } from "./mock-oauth.js";

const GOOGLE_API_SCRIPT = "https://apis.google.com/js/api.js";
const PICKER_SETTINGS = {
  GOOGLE_PICKER_API_KEY: "AIzaSy-team-picker-key",
  GOOGLE_PICKER_APP_ID: "123456789",
};
/** The person whose picker link it is. */
const ALICE = MOCK_DEFAULT_USER;

describe("the sheets file picker, per user", () => {
  let d: Deployment;
  let executablePath: string;
  /** Alice's picker link, and the Google access token her calls use. */
  let url: string;
  let token: string;

  beforeAll(async () => {
    [d, executablePath] = await Promise.all([
      startDeployment({ name: "picker", replicas: 1, store: "file", env: PICKER_SETTINGS }),
      chromiumExecutable(),
    ]);
    const link = connectLinkIn(d, await callAs(d, ALICE, "Sheets_WhoAmI"), "google");
    expect((await browser({ user: ALICE }).open(link)).text).toContain("Connected Google");
    expect((await callAs(d, ALICE, "Sheets_WhoAmI")).isError).toBe(false);
    token = d.upstreams.of("google", ALICE).at(-1)?.credential ?? "";
    const generated = await callAs(d, ALICE, "Sheets_GenerateFilePickerUrl");
    expect(generated.isError, generated.text).toBe(false);
    url = String(generated.data?.url);
    expect(url).toMatch(new RegExp(`^${d.url}/sheets/picker/[\\w-]+$`));
  }, INSTALL_TIMEOUT_MS + 600_000);
  afterAll(() => d?.stop());

  it("sends a browser without a session to sign in, with no token in the answer", async () => {
    const answer = await fetch(url, { redirect: "manual" });
    const body = await answer.text();
    expect(body).not.toContain(token);
    expect(body).not.toContain("picker-config");
    expect(answer.status).toBe(302);
    expect(answer.headers.get("location")).toMatch(new RegExp(`^${d.idp.url}/authorize\\?`));
  });

  it("takes no pick without a session", async () => {
    const pick = await fetch(`${url}/picked`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ files: [{ id: "forged", name: "Forged" }] }),
    });
    expect(pick.status).toBe(401);
  });

  it("shows Bob, signed in as himself, nothing of Alice's link", async () => {
    const bob = browser({ user: "bob" });
    expect((await bob.open(`${d.url}/connect`)).text).toContain("Signed in as bob@example.com");
    const page = await bob.open(url);
    expect(page.status).toBe(404);
    expect(page.body).not.toContain(token);
  });

  it("opens the Picker with Alice's token once her browser signs in, and takes her pick", {
    timeout: 60_000,
  }, async () => {
    const chrome = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
    try {
      const context = await chrome.newContext();
      const outside: string[] = [];
      await context.route("**/*", (route) => {
        const target = new URL(route.request().url());
        if (target.href === GOOGLE_API_SCRIPT)
          return route.fulfill({ contentType: "text/javascript", body: GOOGLE_API_SCRIPT_STUB });
        if ([d.url, d.idp.url].some((base) => target.href.startsWith(base))) return route.continue();
        outside.push(target.href);
        return route.abort();
      });
      const page = await context.newPage();
      await page.goto(url);
      await page.getByText("You can return to your agent").waitFor();
      expect(page.url()).toBe(url);
      expect(await page.locator("#files li").allTextContents()).toEqual([
        `${STUB_PICKED_FILE.name} (${STUB_PICKED_FILE.id})`,
      ]);
      const calls = await page.evaluate(
        () => (globalThis as unknown as { __picker: { calls: unknown[][] } }).__picker.calls,
      );
      expect(calls).toContainEqual(["setOAuthToken", token]);
      expect(outside).toEqual([]);

      // The pick is kept: her browser now sees the list; a stranger still sees nothing.
      await page.reload();
      await page.getByText("Already picked").waitFor();
      expect(await page.content()).toContain(STUB_PICKED_FILE.name);
      const stranger = await (await fetch(url, { redirect: "manual" })).text();
      expect(stranger).not.toContain(STUB_PICKED_FILE.name);
    } finally {
      await chrome.close();
    }
  });
});
