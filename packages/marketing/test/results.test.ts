import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { MAX_RESULT_BYTES } from "../src/index.js";
import { call, connect, ok, useSandbox } from "./support/harness.js";

const sandbox = useSandbox();
const answer = (path: string, body: unknown, status = 200) =>
  sandbox.server.use(
    http.get(`https://api.customer.io${path}`, () =>
      body === undefined ? new HttpResponse(null, { status }) : HttpResponse.json(body as object, { status }),
    ),
  );

describe("results", () => {
  it("drops null fields", async () => {
    answer("/v1/segments/:id", { segment: { id: 7, name: "VIPs", progress: null, tags: null } });
    expect(ok(await call(await connect(), "GetSegmentInfo", { segment_identifier: 7 }))).toEqual({
      segment: { id: 7, name: "VIPs" },
    });
  });

  it("wraps an array answer as { result }", async () => {
    answer("/v1/collections/:id/content", [{ a: 1 }, { a: 2 }]);
    expect(
      ok(await call(await connect(), "RetrieveCollectionContents", { collection_identifier: 1 })),
    ).toEqual({
      result: [{ a: 1 }, { a: 2 }],
    });
  });

  it("turns an empty 204 answer into { ok: true }", async () => {
    expect(ok(await call(await connect(), "DeleteNewsletter", { newsletter_identifier: 4 }))).toEqual({
      ok: true,
    });
  });

  it("surfaces next as more and next_page_token, and never a token on the last page", async () => {
    answer("/v1/campaigns/:id/actions", { actions: [{ id: 1 }], next: "MTA=" });
    const client = await connect();
    expect(ok(await call(client, "ListCampaignActions", { campaign_id: 3 }))).toEqual({
      actions: [{ id: 1 }],
      more: true,
      next_page_token: "MTA=",
      next_page_parameter: "page_token",
    });
    answer("/v1/campaigns/:id/actions", { actions: [], next: "" });
    expect(ok(await call(client, "ListCampaignActions", { campaign_id: 3, page_token: "MTA=" }))).toEqual({
      actions: [],
      more: false,
    });
    expect(sandbox.seen[1]?.url.searchParams.get("start")).toBe("MTA=");
  });

  it("caps a large answer with a marker naming the page size to use", async () => {
    const identifiers = Array.from({ length: 3000 }, (_, i) => ({
      id: String(i),
      email: `person${i}@example.com`,
      cio_id: `c${i}`,
    }));
    answer("/v1/segments/:id/membership", { identifiers, next: "next-page" });
    const result = ok(await call(await connect(), "GetSegmentMembers", { segment_identifier: 7 }));
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
