// A person's steps in headless Chromium when a client sends them to the built-in authorization
// server: sign-in at the mock identity provider, then the consent page.
import type { BrowserContext } from "playwright-core";
import type { Deployment } from "./deployment.js";

/** What the person does on the consent page besides allowing. */
export interface ConsentSteps {
  connectPager?: boolean;
  untick?: string[];
}

/**
 * Opens `url` in `context` as `user`: signs in at the identity provider, then on the consent page
 * connects PagerDuty (in the tab the page opens) when asked to, unticks what `untick` names, and
 * allows; resolves once the browser reached the client's callback.
 */
export async function consentInChromium(
  d: Deployment,
  context: BrowserContext,
  url: string,
  user: string,
  options: ConsentSteps = {},
): Promise<void> {
  d.idp.signInAs(user);
  const page = await context.newPage();
  try {
    await page.goto(url);
    await page.getByText("Allow access?").waitFor();
    if (options.connectPager) {
      d.pagerAuth.signInAs(user);
      const [tab] = await Promise.all([
        context.waitForEvent("page"),
        page.getByRole("link", { name: "Connect PagerDuty" }).click(),
      ]);
      await tab.getByText("Connected PagerDuty").waitFor();
      await tab.close();
    }
    for (const scope of options.untick ?? [])
      await page.locator(`input[name=scope][value=${scope}]`).uncheck();
    await page.getByRole("button", { name: "Allow" }).click();
    await page.waitForURL((target) => target.href.includes("/callback?"));
  } catch (error) {
    // Where the browser got stuck says more than the step that timed out.
    const shown =
      (await page
        .locator("body")
        .textContent({ timeout: 1_000 })
        .catch(() => "")) ?? "";
    throw new Error(`${String(error)}\nat ${page.url()}: ${shown.slice(0, 500)}`);
  }
  await page.close();
}
