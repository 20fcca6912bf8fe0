import { useToolkitSandbox } from "@toolkits/core/testing";
import { describe, expect, it } from "vitest";
import { marketingToolkit } from "../../src/index.js";
import { MARKETING } from "../support/kit.js";

// Found by the fuzz tests: values the upstream cannot take were sent (activity types) or made
// fetch fail as if the network had (header values). Both are now refused before sending.

const box = useToolkitSandbox(marketingToolkit, MARKETING);

describe("values checked before sending", () => {
  it.each([
    ["ListRecentActivities", { activity_type: "not_an_activity" }, "activity_type"],
    [
      "GetCustomerActivities",
      { customer_id: "1", activity_type_filter: "_o:x:create" },
      "activity_type_filter",
    ],
  ])("%s refuses an activity type the API does not take", async (tool, args, param) => {
    const result = await box.call(`MarketingApi.${tool}`, args);
    expect(result.text).toMatch(new RegExp(`^invalid_input: .*${param} ".*" is not a value the API takes`));
    expect(box.requests).toHaveLength(0);
  });

  it("takes activity types with an object type id", async () => {
    const result = await box.call("MarketingApi.ListRecentActivities", { activity_type: "_o:12:create" });
    expect(result.isError).toBeFalsy();
    expect(box.queries()[0]?.get("type")).toBe("_o:12:create");
  });

  it.each(["čeština", "fr\r\nX-Injected: 1", "de\0"])(
    "refuses the Accept-Language value %j",
    async (value) => {
      const args = { customer_identifier: "svc_a3000001", accept_language: value };
      const result = await box.call("MarketingApi.GetSubscriptionPreferences", args);
      expect(result.text).toMatch(
        /^invalid_input: .*accept_language must be Latin-1 text without line breaks/,
      );
      expect(box.requests).toHaveLength(0);
    },
  );
});
