import { okData, useToolkitSandbox } from "@toolkits/core/testing";
import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { MAX_RESULT_BYTES, marketingToolkit } from "../src/index.js";
import { MARKETING } from "./support/kit.js";

const box = useToolkitSandbox(marketingToolkit, MARKETING);
const answer = (path: string, body: unknown, status = 200) =>
  box.server.use(
    http.get(`https://api.customer.io${path}`, () =>
      body === undefined ? new HttpResponse(null, { status }) : HttpResponse.json(body as object, { status }),
    ),
  );

describe("results", () => {
  it("drops null fields", async () => {
    answer("/v1/segments/:id", { segment: { id: 7, name: "VIPs", progress: null, tags: null } });
    expect(okData(await box.call("MarketingApi.GetSegmentInfo", { segment_identifier: 7 }))).toEqual({
      segment: { id: 7, name: "VIPs" },
    });
  });

  it("wraps an array answer as { result }", async () => {
    answer("/v1/collections/:id/content", [{ a: 1 }, { a: 2 }]);
    expect(
      okData(await box.call("MarketingApi.RetrieveCollectionContents", { collection_identifier: 1 })),
    ).toEqual({
      result: [{ a: 1 }, { a: 2 }],
    });
  });

  it("turns an empty 204 answer into { ok: true }", async () => {
    expect(okData(await box.call("MarketingApi.DeleteNewsletter", { newsletter_identifier: 4 }))).toEqual({
      ok: true,
    });
  });

  it("surfaces next as more and next_page_token, and never a token on the last page", async () => {
    answer("/v1/campaigns/:id/actions", { actions: [{ id: 1 }], next: "MTA=" });
    expect(okData(await box.call("MarketingApi.ListCampaignActions", { campaign_id: 3 }))).toEqual({
      actions: [{ id: 1 }],
      more: true,
      next_page_token: "MTA=",
      next_page_parameter: "page_token",
    });
    answer("/v1/campaigns/:id/actions", { actions: [], next: "" });
    expect(
      okData(await box.call("MarketingApi.ListCampaignActions", { campaign_id: 3, page_token: "MTA=" })),
    ).toEqual({
      actions: [],
      more: false,
    });
    expect(box.queries()[1]?.get("start")).toBe("MTA=");
  });

  it("caps a large answer with a marker naming the page size to use", async () => {
    const identifiers = Array.from({ length: 3000 }, (_, i) => ({
      id: String(i),
      email: `person${i}@example.com`,
      cio_id: `c${i}`,
    }));
    answer("/v1/segments/:id/membership", { identifiers, next: "next-page" });
    const result = okData(await box.call("MarketingApi.GetSegmentMembers", { segment_identifier: 7 }));
    expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThanOrEqual(MAX_RESULT_BYTES);
    expect(result.truncated).toBe(true);
    const truncation = result.truncation as { field: string; omitted: number; note: string };
    const kept = (result.identifiers as unknown[]).length;
    expect(truncation.field).toBe("identifiers");
    expect(truncation.omitted).toBe(3000 - kept);
    expect(truncation.note).toContain(
      `Call again with maximum_results_per_page=${kept} so that paging skips nothing.`,
    );
  });
});
