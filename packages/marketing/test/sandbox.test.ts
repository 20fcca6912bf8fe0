import { describe, expect, it } from "vitest";
import { sandbox as makeSandbox, SEEDED_MEMBERS } from "../src/sandbox/index.js";
import { call, connect, ok, text, useSandbox } from "./support/harness.js";

const sandbox = useSandbox();

const body = (value: unknown) => JSON.stringify(value);

describe("sandbox round trips", () => {
  it("creates, lists, reads, updates, replaces and deletes a collection", async () => {
    const client = await connect();
    const created = ok(
      await call(client, "CreateNewCollection", {
        mode: "execute",
        request_body: body({ name: "prizes", data: [{ sku: "A1", price: 5 }] }),
      }),
    );
    const id = (created.collection as { id: number }).id;
    const listed = ok(await call(client, "ListCollections"));
    expect((listed.collections as { name: string }[]).map((c) => c.name)).toContain("prizes");
    ok(
      await call(client, "UpdateCollectionInfo", {
        mode: "execute",
        collection_identifier: id,
        request_body: body({ name: "rewards" }),
      }),
    );
    const details = ok(await call(client, "RetrieveCollectionDetails", { collection_identifier: id }));
    expect(details.collection).toMatchObject({ id, name: "rewards", rows: 1, schema: ["price", "sku"] });
    const contents = { items: [{ sku: "B2", price: 7 }] };
    ok(
      await call(client, "ReplaceCollectionContents", {
        mode: "execute",
        collection_identifier: id,
        request_body: body(contents),
      }),
    );
    expect(ok(await call(client, "RetrieveCollectionContents", { collection_identifier: id }))).toEqual(
      contents,
    );
    expect(ok(await call(client, "DeleteCollection", { collection_id: id }))).toEqual({ ok: true });
    const gone = await call(client, "RetrieveCollectionDetails", { collection_identifier: id });
    expect(text(gone)).toMatch(
      /^not_found: GET \/v1\/collections\/\{collection_id\} failed with HTTP 404: collection \d+ not found\. Check the ids; MarketingApi\.ListCollections lists valid ones\./,
    );
  });

  it("creates, overwrites and deletes snippets, and refuses to delete one in use", async () => {
    const client = await connect();
    ok(
      await call(client, "UpdateOrCreateSnippet", {
        mode: "execute",
        request_body: body({ name: "sig", value: "Bye" }),
      }),
    );
    ok(
      await call(client, "UpdateOrCreateSnippet", {
        mode: "execute",
        request_body: body({ name: "sig", value: "Cheers" }),
      }),
    );
    const listed = ok(await call(client, "ListSnippetsWorkspace"));
    expect(listed.snippets).toContainEqual(expect.objectContaining({ name: "sig", value: "Cheers" }));
    expect(ok(await call(client, "RemoveUnusedSnippet", { snippet_name: "sig" }))).toEqual({ ok: true });
    expect(text(await call(client, "RemoveUnusedSnippet", { snippet_name: "sig" }))).toMatch(
      /^not_found: .*snippet sig not found/,
    );
    const inUse = await call(client, "RemoveUnusedSnippet", { snippet_name: "footer" });
    expect(text(inUse)).toContain(
      "invalid_input: DELETE /v1/snippets/{snippet_name} failed with HTTP 400: unable to delete snippet in use.",
    );
  });

  it("creates, counts and deletes a manual segment", async () => {
    const client = await connect();
    const created = ok(
      await call(client, "CreateManualSegment", {
        mode: "execute",
        request_body: body({ segment: { name: "VIPs", description: "Top buyers" } }),
      }),
    );
    const id = (created.segment as { id: number }).id;
    expect(ok(await call(client, "GetSegmentInfo", { segment_identifier: id })).segment).toMatchObject({
      name: "VIPs",
      type: "manual",
    });
    expect(ok(await call(client, "GetSegmentCustomerCount", { segment_id: id }))).toEqual({ count: 0 });
    const all = ok(await call(client, "GetAllSegments"));
    expect((all.segments as { id: number }[]).map((s) => s.id)).toContain(id);
    ok(await call(client, "DeleteManualSegment", { segment_identifier: id }));
    expect(text(await call(client, "FindSegmentDependencies", { segment_identifier: id }))).toContain(
      "MarketingApi.GetAllSegments lists valid ones",
    );
  });

  it("pages through segment members to the end, with no token on the last page", async () => {
    const client = await connect();
    const ids: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const args: Record<string, unknown> = { segment_identifier: 7, maximum_results_per_page: 10 };
      if (token) args.pagination_token = token;
      const page = ok(await call(client, "GetSegmentMembers", args));
      ids.push(...(page.ids as string[]));
      expect(page).not.toHaveProperty("next");
      token = page.next_page_token as string | undefined;
      expect(page.more).toBe(token !== undefined);
      if (token) expect(page.next_page_parameter).toBe("pagination_token");
      pages++;
    } while (token);
    expect(pages).toBe(3);
    expect(ids).toEqual(Array.from({ length: SEEDED_MEMBERS }, (_, i) => String(i + 1)));
    expect(sandbox.seen.map((seen) => seen.url.searchParams.has("start"))).toEqual([false, true, true]);
  });

  it("returns member identifiers with svc_id", async () => {
    const page = ok(
      await call(await connect(), "GetSegmentMembers", {
        segment_identifier: 7,
        maximum_results_per_page: 1,
      }),
    );
    expect(page.identifiers).toEqual([{ email: "person1@example.com", id: "1", svc_id: "a3000001" }]);
  });

  it("suppresses, lists by offset and unsuppresses addresses", async () => {
    const client = await connect();
    for (const n of [1, 2, 3]) {
      ok(
        await call(client, "SuppressEmailAtEsp", {
          email_address_to_suppress: `s${n}@example.com`,
          suppression_reason: "spam_reports",
        }),
      );
    }
    const first = ok(
      await call(client, "FindSuppressedEmailAddresses", {
        suppression_reason: "spam_reports",
        max_results_per_page: 2,
      }),
    );
    expect(first).toMatchObject({ more: true, next_offset: 2, limit: 2, offset: 0 });
    const second = ok(
      await call(client, "FindSuppressedEmailAddresses", {
        suppression_reason: "spam_reports",
        max_results_per_page: 2,
        skip_records: 2,
      }),
    );
    expect(second).toMatchObject({ more: false, offset: 2 });
    expect(second).not.toHaveProperty("next_offset");
    expect((second.suppressions as { email: string }[]).map((s) => s.email)).toEqual(["s3@example.com"]);
    ok(
      await call(client, "RemoveEmailSuppression", {
        email_address_to_remove: "s3@example.com",
        suppression_reason: "spam_reports",
      }),
    );
    const missing = await call(client, "RemoveEmailSuppression", {
      email_address_to_remove: "s3@example.com",
      suppression_reason: "spam_reports",
    });
    expect(text(missing)).toMatch(/^not_found: /);
  });

  it("starts every sandbox() with fresh state", async () => {
    const client = await connect();
    ok(await call(client, "DeleteCollection", { collection_id: 1 }));
    expect((await call(client, "RetrieveCollectionDetails", { collection_identifier: 1 })).isError).toBe(
      true,
    );
    sandbox.reset();
    ok(await call(client, "RetrieveCollectionDetails", { collection_identifier: 1 }));
  });

  it("offers handlers for all 115 endpoints and its key", () => {
    const fake = makeSandbox();
    expect(fake.handlers).toHaveLength(115);
    expect(fake.secrets).toEqual({ MARKETING_API_KEY: "sandbox-marketing-key" });
  });

  it("answers 401 to any other key, and the message names the region", async () => {
    const client = await connect({ MARKETING_API_KEY: "wrong-key-123456" });
    const result = await call(client, "GetAllSegments");
    expect(result.isError).toBe(true);
    const message = text(result);
    expect(message).toMatch(
      /^unauthenticated: GET \/v1\/segments failed with HTTP 401: Unauthorized request: check your App API key\./,
    );
    expect(message).toContain("US region (MARKETING_REGION=us; the other is eu)");
    expect(message).not.toContain("wrong-key-123456");
  });
});
