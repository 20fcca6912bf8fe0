import { isWatchedSecret, okData, useToolkitSandbox } from "@toolkits/core/testing";
import { describe, expect, it } from "vitest";
import { marketingToolkit } from "../src/index.js";
import { sandbox as makeSandbox, SANDBOX_API_KEY, SEEDED_MEMBERS } from "../src/sandbox/index.js";
import { MARKETING } from "./support/kit.js";

const box = useToolkitSandbox(marketingToolkit, MARKETING);

const body = (value: unknown) => JSON.stringify(value);

describe("sandbox round trips", () => {
  it("creates, lists, reads, updates, replaces and deletes a collection", async () => {
    const created = okData(
      await box.call("MarketingApi.CreateNewCollection", {
        mode: "execute",
        request_body: body({ name: "prizes", data: [{ sku: "A1", price: 5 }] }),
      }),
    );
    const id = (created.collection as { id: number }).id;
    const listed = okData(await box.call("MarketingApi.ListCollections"));
    expect((listed.collections as { name: string }[]).map((c) => c.name)).toContain("prizes");
    okData(
      await box.call("MarketingApi.UpdateCollectionInfo", {
        mode: "execute",
        collection_identifier: id,
        request_body: body({ name: "rewards" }),
      }),
    );
    const details = okData(
      await box.call("MarketingApi.RetrieveCollectionDetails", { collection_identifier: id }),
    );
    expect(details.collection).toMatchObject({ id, name: "rewards", rows: 1, schema: ["price", "sku"] });
    const contents = { items: [{ sku: "B2", price: 7 }] };
    okData(
      await box.call("MarketingApi.ReplaceCollectionContents", {
        mode: "execute",
        collection_identifier: id,
        request_body: body(contents),
      }),
    );
    expect(
      okData(await box.call("MarketingApi.RetrieveCollectionContents", { collection_identifier: id })),
    ).toEqual(contents);
    expect(okData(await box.call("MarketingApi.DeleteCollection", { collection_id: id }))).toEqual({
      ok: true,
    });
    const gone = await box.call("MarketingApi.RetrieveCollectionDetails", { collection_identifier: id });
    expect(gone.text).toMatch(
      /^not_found: GET \/v1\/collections\/\{collection_id\} failed with HTTP 404: collection \d+ not found\. Check the ids; MarketingApi\.ListCollections lists valid ones\./,
    );
  });

  it("creates, overwrites and deletes snippets, and refuses to delete one in use", async () => {
    okData(
      await box.call("MarketingApi.UpdateOrCreateSnippet", {
        mode: "execute",
        request_body: body({ name: "sig", value: "Bye" }),
      }),
    );
    okData(
      await box.call("MarketingApi.UpdateOrCreateSnippet", {
        mode: "execute",
        request_body: body({ name: "sig", value: "Cheers" }),
      }),
    );
    const listed = okData(await box.call("MarketingApi.ListSnippetsWorkspace"));
    expect(listed.snippets).toContainEqual(expect.objectContaining({ name: "sig", value: "Cheers" }));
    expect(okData(await box.call("MarketingApi.RemoveUnusedSnippet", { snippet_name: "sig" }))).toEqual({
      ok: true,
    });
    expect((await box.call("MarketingApi.RemoveUnusedSnippet", { snippet_name: "sig" })).text).toMatch(
      /^not_found: .*snippet sig not found/,
    );
    const inUse = await box.call("MarketingApi.RemoveUnusedSnippet", { snippet_name: "footer" });
    expect(inUse.text).toContain(
      "invalid_input: DELETE /v1/snippets/{snippet_name} failed with HTTP 400: unable to delete snippet in use.",
    );
  });

  it("creates, counts and deletes a manual segment", async () => {
    const created = okData(
      await box.call("MarketingApi.CreateManualSegment", {
        mode: "execute",
        request_body: body({ segment: { name: "VIPs", description: "Top buyers" } }),
      }),
    );
    const id = (created.segment as { id: number }).id;
    expect(
      okData(await box.call("MarketingApi.GetSegmentInfo", { segment_identifier: id })).segment,
    ).toMatchObject({
      name: "VIPs",
      type: "manual",
    });
    expect(okData(await box.call("MarketingApi.GetSegmentCustomerCount", { segment_id: id }))).toEqual({
      count: 0,
    });
    const all = okData(await box.call("MarketingApi.GetAllSegments"));
    expect((all.segments as { id: number }[]).map((s) => s.id)).toContain(id);
    okData(await box.call("MarketingApi.DeleteManualSegment", { segment_identifier: id }));
    expect(
      (await box.call("MarketingApi.FindSegmentDependencies", { segment_identifier: id })).text,
    ).toContain("MarketingApi.GetAllSegments lists valid ones");
  });

  it("pages through segment members to the end, with no token on the last page", async () => {
    const ids: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const args: Record<string, unknown> = { segment_identifier: 7, maximum_results_per_page: 10 };
      if (token) args.pagination_token = token;
      const page = okData(await box.call("MarketingApi.GetSegmentMembers", args));
      ids.push(...(page.ids as string[]));
      expect(page).not.toHaveProperty("next");
      token = page.next_page_token as string | undefined;
      expect(page.more).toBe(token !== undefined);
      if (token) expect(page.next_page_parameter).toBe("pagination_token");
      pages++;
    } while (token);
    expect(pages).toBe(3);
    expect(ids).toEqual(Array.from({ length: SEEDED_MEMBERS }, (_, i) => String(i + 1)));
    expect(box.queries().map((query) => query.has("start"))).toEqual([false, true, true]);
  });

  it("returns member identifiers with svc_id", async () => {
    const page = okData(
      await box.call("MarketingApi.GetSegmentMembers", {
        segment_identifier: 7,
        maximum_results_per_page: 1,
      }),
    );
    expect(page.identifiers).toEqual([{ email: "person1@example.com", id: "1", svc_id: "a3000001" }]);
  });

  it("suppresses, lists by offset and unsuppresses addresses", async () => {
    for (const n of [1, 2, 3]) {
      okData(
        await box.call("MarketingApi.SuppressEmailAtEsp", {
          email_address_to_suppress: `s${n}@example.com`,
          suppression_reason: "spam_reports",
        }),
      );
    }
    const first = okData(
      await box.call("MarketingApi.FindSuppressedEmailAddresses", {
        suppression_reason: "spam_reports",
        max_results_per_page: 2,
      }),
    );
    expect(first).toMatchObject({ more: true, next_offset: 2, limit: 2, offset: 0 });
    const second = okData(
      await box.call("MarketingApi.FindSuppressedEmailAddresses", {
        suppression_reason: "spam_reports",
        max_results_per_page: 2,
        skip_records: 2,
      }),
    );
    expect(second).toMatchObject({ more: false, offset: 2 });
    expect(second).not.toHaveProperty("next_offset");
    expect((second.suppressions as { email: string }[]).map((s) => s.email)).toEqual(["s3@example.com"]);
    okData(
      await box.call("MarketingApi.RemoveEmailSuppression", {
        email_address_to_remove: "s3@example.com",
        suppression_reason: "spam_reports",
      }),
    );
    const missing = await box.call("MarketingApi.RemoveEmailSuppression", {
      email_address_to_remove: "s3@example.com",
      suppression_reason: "spam_reports",
    });
    expect(missing.text).toMatch(/^not_found: /);
  });

  it("starts every sandbox() with fresh state", async () => {
    okData(await box.call("MarketingApi.DeleteCollection", { collection_id: 1 }));
    expect(
      (await box.call("MarketingApi.RetrieveCollectionDetails", { collection_identifier: 1 })).isError,
    ).toBe(true);
    await box.reset();
    okData(await box.call("MarketingApi.RetrieveCollectionDetails", { collection_identifier: 1 }));
  });

  it("offers handlers for all 115 endpoints and its key", () => {
    const fake = makeSandbox();
    expect(fake.handlers).toHaveLength(115);
    expect(fake.secrets).toEqual({ MARKETING_API_KEY: "sandbox-marketing-key" });
  });

  it("answers 401 to any other key, and the message names the region", async () => {
    const result = await box.call(
      "MarketingApi.GetAllSegments",
      {},
      { MARKETING_API_KEY: "wrong-key-123456" },
    );
    expect(result.isError).toBe(true);
    const message = result.text;
    expect(message).toMatch(
      /^unauthenticated: GET \/v1\/segments failed with HTTP 401: Unauthorized request: check your App API key\./,
    );
    expect(message).toContain("US region (MARKETING_REGION=us; the other is eu)");
    expect(message).not.toContain("wrong-key-123456");
  });
});

it("runs under the suite's leak scan, which watches the sandbox's key", () => {
  expect(isWatchedSecret(SANDBOX_API_KEY)).toBe(true);
});
