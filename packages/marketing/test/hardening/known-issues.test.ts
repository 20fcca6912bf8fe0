import { describe, expect, it } from "vitest";
import { call, connect, text, useSandbox } from "../support/harness.js";
import { uncheckedActivityType, unsendableHeader } from "./known-issues.js";

// Bugs the fuzz tests found, reported and not yet fixed. Each test states the correct behaviour
// and is marked `.fails` while the bug stands: once it is fixed the test passes, vitest reports the
// unexpected pass, and the marker and the matching skip in known-issues.ts go.

const sandbox = useSandbox();

describe("reported bugs", () => {
  it.fails("refuses an activity type the upstream does not take, before sending it", async () => {
    const args = { activity_type: "not_an_activity" };
    expect(uncheckedActivityType("MarketingApi.ListRecentActivities", args)).toBe(true);
    const result = await call(await connect(), "ListRecentActivities", args);
    expect(text(result)).toMatch(/^invalid_input: .*activity_type/);
    expect(sandbox.seen).toHaveLength(0);
  });

  it.fails("refuses an Accept-Language value fetch cannot send (outside Latin-1) as invalid_input", async () => {
    const args = { customer_identifier: "svc_a3000001", accept_language: "ćeština" };
    expect(unsendableHeader("MarketingApi.GetSubscriptionPreferences", args)).toBe(true);
    const result = await call(await connect(), "GetSubscriptionPreferences", args);
    expect(text(result)).toMatch(/^invalid_input: .*accept_language/i);
  });
});
