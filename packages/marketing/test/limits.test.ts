import { okData, useToolkitSandbox } from "@toolkits/core/testing";
import { describe, expect, it } from "vitest";
import { marketingToolkit } from "../src/index.js";
import { MARKETING } from "./support/kit.js";

const box = useToolkitSandbox(marketingToolkit, MARKETING);

async function refusal(tool: string, args: Record<string, unknown>): Promise<string> {
  const result = await box.call(`MarketingApi.${tool}`, args);
  expect(result.isError).toBe(true);
  expect(box.requests).toHaveLength(0);
  return result.text;
}

describe("period counts", () => {
  it.each([
    ["hours", 24],
    ["days", 45],
    ["weeks", 12],
    ["months", 121],
  ])("refuses more than the maximum for %s (%i), naming the parameter and unit", async (unit, max) => {
    const message = await refusal("GetBroadcastMetrics", {
      broadcast_identifier: 1,
      time_period_unit: unit,
      number_of_time_periods: max + 1,
    });
    // Past the largest maximum (months) the input schema's own bound answers first.
    const expected =
      unit === "months"
        ? `number_of_time_periods: Too big: expected number to be <=${max}`
        : `number_of_time_periods is ${max + 1}, but at most ${max} when time_period_unit is ${unit}`;
    expect(message).toContain(expected);
  });

  it.each([
    ["hours", 24],
    ["days", 45],
    ["weeks", 12],
    ["months", 121],
  ])("accepts the maximum for %s", async (unit, max) => {
    okData(
      await box.call("MarketingApi.GetNewsletterLinkMetrics", {
        newsletter_identifier: 1,
        time_unit_for_report: unit,
        number_of_periods: max,
      }),
    );
    expect(box.queries()[0]?.get("steps")).toBe(String(max));
    expect(box.queries()[0]?.get("period")).toBe(unit);
  });

  it("checks the count against the default unit, days", async () => {
    const message = await refusal("GetTransactionalMessageMetrics", {
      transactional_message_id: 1,
      number_of_periods: 46,
    });
    expect(message).toContain("number_of_periods is 46, but at most 45 when time_unit_for_report is days");
  });

  it("allows at most 120 months where the spec says so (campaign action metrics, version 1)", async () => {
    const args = {
      campaign_id: 1,
      action_identifier: 2,
      metrics_api_version: "1",
      version_1_time_unit: "months",
    };
    const message = await refusal("GetCampaignActionMetrics", { ...args, number_of_steps: 121 });
    expect(message).toContain("number_of_steps: Too big: expected number to be <=120");
    okData(await box.call("MarketingApi.GetCampaignActionMetrics", { ...args, number_of_steps: 120 }));
    okData(
      await box.call("MarketingApi.GetCampaignMetrics", {
        campaign_id: 1,
        metrics_api_version: "1",
        version_1_time_unit: "months",
        number_of_steps: 121,
      }),
    );
  });

  it.each([
    [
      "GetNewsletterMetrics",
      { newsletter_identifier: 1, number_of_time_periods: 1 },
      "number_of_time_periods",
    ],
    [
      "GetNewsletterVariantMetrics",
      { newsletter_identifier: 1, newsletter_message_id: 2, number_of_period_steps: 1 },
      "number_of_period_steps",
    ],
    [
      "GetTransactionalLinkMetrics",
      { transactional_message_id: 1, number_of_periods: 1 },
      "number_of_periods",
    ],
  ])("%s refuses fewer than 2 periods", async (tool, args, param) => {
    expect(await refusal(tool, args)).toContain(`${param}: Too small: expected number to be >=2`);
  });

  it("accepts one period where no minimum of 2 is stated", async () => {
    okData(
      await box.call("MarketingApi.GetNewsletterLinkMetrics", {
        newsletter_identifier: 1,
        number_of_periods: 1,
      }),
    );
  });
});

describe("metrics versions", () => {
  it("sends the v1 period default only for version 1", async () => {
    okData(
      await box.call("MarketingApi.GetCampaignMetrics", {
        campaign_id: 3,
        metrics_api_version: "1",
        number_of_steps: 4,
      }),
    );
    okData(
      await box.call("MarketingApi.GetCampaignMetrics", {
        campaign_id: 3,
        metrics_api_version: "2",
        resolution: "daily",
      }),
    );
    const [v1, v2] = box.queries().map((query) => Object.fromEntries(query));
    expect(v1).toEqual({ version: "1", period: "days", steps: "4" });
    expect(v2).toEqual({ version: "2", res: "daily" });
  });

  it("refuses v2 parameters with version 1 and v1 parameters with version 2", async () => {
    expect(
      await refusal("GetCampaignMetrics", { campaign_id: 3, metrics_api_version: "1", resolution: "daily" }),
    ).toContain('resolution applies only when metrics_api_version is "2"');
    expect(
      await refusal("GetCampaignActionMetrics", {
        campaign_id: 3,
        action_identifier: 1,
        metrics_api_version: "2",
        number_of_steps: 3,
      }),
    ).toContain('number_of_steps applies only when metrics_api_version is "1"');
  });

  it("refuses a v2 range longer than 10 years or ending before it starts", async () => {
    const start = 1_600_000_000;
    const base = { campaign_id: 3, metrics_api_version: "2", metrics_start_timestamp: start };
    expect(await refusal("GetCampaignMetrics", { ...base, end_time_unix: start + 315_576_001 })).toContain(
      "end_time_unix is more than 10 years (315576000 s) after metrics_start_timestamp",
    );
    expect(await refusal("GetCampaignMetrics", { ...base, end_time_unix: start - 1 })).toContain(
      "end_time_unix is before metrics_start_timestamp",
    );
    okData(
      await box.call("MarketingApi.GetCampaignMetrics", { ...base, end_time_unix: start + 315_576_000 }),
    );
  });

  it("requires the version", async () => {
    expect(await refusal("GetCampaignMetrics", { campaign_id: 3 })).toContain(
      "metrics_api_version: Invalid option",
    );
  });
});

describe("page sizes", () => {
  it.each([
    ["GetNewsletters", {}, "max_results_per_page", 100],
    ["FindSuppressedEmailAddresses", { suppression_reason: "bounces" }, "max_results_per_page", 1000],
    ["ListRecentActivities", {}, "results_per_page_limit", 100],
    ["GetCampaignMessages", { campaign_id: 1 }, "results_per_page", 1000],
    ["GetCustomerActivities", { customer_id: "1" }, "max_results_per_page", 100],
    ["GetSegmentMembers", { segment_identifier: 7 }, "maximum_results_per_page", 30000],
  ])("%s refuses more than its maximum", async (tool, args, param, max) => {
    expect(await refusal(tool, { ...args, [param]: max + 1 })).toContain(
      `${param}: Too big: expected number to be <=${max}`,
    );
  });

  it("refuses a page size of 0", async () => {
    expect(await refusal("GetSenderList", { max_results_per_page: 0 })).toContain(
      "max_results_per_page: Too small",
    );
  });

  it("refuses FilterPeopleInWorkspace pages over 1000 even in execute mode", async () => {
    const args = { mode: "execute", request_body: '{"filter":{}}', results_per_page_limit: 1001 };
    expect(await refusal("FilterPeopleInWorkspace", args)).toContain(
      "results_per_page_limit: Too big: expected number to be <=1000",
    );
  });
});

describe("enumerations", () => {
  it.each([
    ["GetBroadcastMetrics", { broadcast_identifier: 1, metric_type: "fax" }, "metric_type"],
    ["GetBroadcastMetrics", { broadcast_identifier: 1, time_period_unit: "years" }, "time_period_unit"],
    [
      "GetCampaignJourneyMetrics",
      { campaign_id: 1, start_timestamp: 1, end_timestamp: 2, metrics_resolution: "hours" },
      "metrics_resolution",
    ],
    ["GetBroadcastMessageInfo", { broadcast_identifier: 1, metric_type: "viewed" }, "metric_type"],
    ["GetBroadcastMessageInfo", { broadcast_identifier: 1, broadcast_state: "queued" }, "broadcast_state"],
    ["GetCustomerSegments", { customer_identifier: "1", customer_id_type: "cio_id" }, "customer_id_type"],
    [
      "GetObjectAttributes",
      { object_type_identifier: 1, object_identifier: "a", object_id_type: "cio_object_id" },
      "object_id_type",
    ],
    ["GetNewsletters", { sort_order: "newest" }, "sort_order"],
    ["FindSuppressedEmailAddresses", { suppression_reason: "spam" }, "suppression_reason"],
    ["CreateManualSegment", { mode: "run" }, "mode"],
  ])(
    "%s refuses an unknown %o value, naming the parameter and the allowed ones",
    async (tool, args, param) => {
      expect(await refusal(tool, args)).toMatch(new RegExp(`${param}: Invalid option: expected one of "`));
    },
  );
});

describe("path values", () => {
  it("refuses an empty identifier, naming the parameter", async () => {
    expect(await refusal("GetDeliveryMessageInfo", { message_identifier: "  " })).toContain(
      "message_identifier must not be empty",
    );
  });

  it('refuses "." and ".." as path values', async () => {
    expect(await refusal("RemoveUnusedSnippet", { snippet_name: ".." })).toContain(
      'snippet_name cannot be ".."',
    );
    expect(await refusal("GetArchivedMessage", { message_id: "." })).toContain('message_id cannot be "."');
  });

  it.each([
    [
      "CheckEmailSuppression",
      { email_to_check_suppression: "a+b@example.com" },
      "/v1/esp/search_suppression/a%2Bb%40example.com",
    ],
    ["RemoveUnusedSnippet", { snippet_name: "../x" }, "/v1/snippets/..%2Fx"],
    ["GetDeliveryMessageInfo", { message_identifier: "a/b" }, "/v1/messages/a%2Fb"],
    [
      "GetCustomerSegments",
      { customer_identifier: "a/b?c#d", customer_id_type: "id" },
      "/v1/customers/a%2Fb%3Fc%23d/segments",
    ],
  ])("%s percent-encodes %o as one path segment", async (tool, args, path) => {
    await box.call(`MarketingApi.${tool}`, args);
    expect(box.requests).toHaveLength(1);
    expect(new URL(box.requests[0]?.url ?? "").pathname).toBe(path);
  });

  it("round-trips an address with + and @ through suppress, check and remove", async () => {
    const email = "a+b@example.com";
    okData(
      await box.call("MarketingApi.SuppressEmailAtEsp", {
        email_address_to_suppress: email,
        suppression_reason: "spam_reports",
      }),
    );
    const found = okData(
      await box.call("MarketingApi.CheckEmailSuppression", { email_to_check_suppression: email }),
    );
    expect(found.suppressions).toEqual([expect.objectContaining({ email, category: "spam_reports" })]);
    okData(
      await box.call("MarketingApi.RemoveEmailSuppression", {
        email_address_to_remove: email,
        suppression_reason: "spam_reports",
      }),
    );
    expect(box.requests.map((request) => new URL(request.url).pathname)).toEqual([
      "/v1/esp/suppression/spam_reports/a%2Bb%40example.com",
      "/v1/esp/search_suppression/a%2Bb%40example.com",
      "/v1/esp/suppression/spam_reports/a%2Bb%40example.com",
    ]);
  });

  it("sends an empty language tag as the default-language path", async () => {
    okData(
      await box.call("MarketingApi.GetTransactionalVariant", {
        transactional_message_id: 5,
        language_tag: "",
      }),
    );
    expect(new URL(box.requests[0]?.url ?? "").pathname).toBe("/v1/transactional/5/language/");
  });
});
