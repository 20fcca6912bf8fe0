import { describe, expect, it } from "vitest";
import { capResult, compact, offsetPage, tokenPage } from "../src/index.js";

describe("compact", () => {
  it("drops null and undefined fields at every depth", () => {
    expect(compact({ a: 1, b: null, c: { d: undefined, e: [1, null, { f: null, g: "x" }] } })).toEqual({
      a: 1,
      c: { e: [1, { g: "x" }] },
    });
  });

  it("returns what has nothing to drop as it is, and shares the unchanged parts of what it copies", () => {
    const clean = { a: 1, list: [{ b: "x" }, 2], nested: { c: [3] } };
    expect(compact(clean)).toBe(clean);
    const mixed = { first: { kept: true }, gone: null, list: [clean, null, "y"], last: 0 };
    const out = compact(mixed);
    expect(out).toEqual({ first: { kept: true }, list: [clean, "y"], last: 0 });
    expect(Object.keys(out)).toEqual(["first", "list", "last"]);
    expect(out.first).toBe(mixed.first);
    expect(out.list[0]).toBe(clean);
    expect(mixed).toEqual({ first: { kept: true }, gone: null, list: [clean, null, "y"], last: 0 });
  });
});

describe("capResult", () => {
  const result = {
    limit: 50,
    items: Array.from({ length: 50 }, (_, i) => ({ id: `P${i}`, note: "x".repeat(80) })),
  };

  it("returns a result under the cap unchanged", () => {
    expect(capResult(result, 1_000_000)).toBe(result);
  });

  it("cuts the largest array from the end and says how many items were omitted and what to do", () => {
    const capped = capResult(result, 2_000, (_field, kept) => `Call again with offset=${kept}.`);
    expect(Buffer.byteLength(JSON.stringify(capped))).toBeLessThanOrEqual(2_000);
    expect(capped.truncated).toBe(true);
    const kept = capped.items.length;
    expect(kept).toBeGreaterThan(0);
    expect(capped.items[kept - 1]).toEqual(result.items[kept - 1]);
    expect(capped.truncation).toEqual({
      field: "items",
      omitted: 50 - kept,
      note: `Result exceeded 2000 bytes; ${50 - kept} item(s) of items omitted. Call again with offset=${kept}.`,
    });
  });

  it("keeps a cut limit/offset page continuable: more is true and next_offset follows the last item kept", () => {
    const page = { ...result, ...offsetPage({ limit: 50, offset: 100, more: false, count: 50 }) };
    expect(page.more).toBe(false);
    const capped = capResult(page, 2_000);
    const kept = capped.items.length;
    expect(kept).toBeLessThan(50);
    expect(capped).toMatchObject({ more: true, next_offset: 100 + kept, offset: 100, truncated: true });
    expect(Buffer.byteLength(JSON.stringify(capped))).toBeLessThanOrEqual(2_000);
  });

  it("shortens long strings when there is no array to cut", () => {
    const capped = capResult({ body: "y".repeat(5_000) }, 1_000);
    expect(capped.truncated).toBe(true);
    expect(capped.body).toHaveLength(201);
    expect(capped.truncation?.field).toBe("strings");
  });
});

describe("pagination", () => {
  it("gives the next offset from the records returned, and none on the last page", () => {
    expect(offsetPage({ limit: 10, offset: 20, more: true, count: 7 })).toEqual({
      limit: 10,
      offset: 20,
      more: true,
      next_offset: 27,
    });
    expect(offsetPage({ limit: 10, offset: 20, more: false, count: 3 })).toEqual({
      limit: 10,
      offset: 20,
      more: false,
    });
  });

  it("surfaces a page token only when there is one", () => {
    expect(tokenPage("abc")).toEqual({ more: true, next_page_token: "abc" });
    expect(tokenPage("")).toEqual({ more: false });
    expect(tokenPage(null)).toEqual({ more: false });
  });
});
