import { describe, expect, it } from "vitest";
import { capResult } from "../../src/index.js";

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe("capResult", () => {
  it("keeps a result with one large array under the cap", () => {
    const people = Array.from({ length: 20_000 }, (_, i) => ({
      id: `person-${i}`,
      email: `p${i}@example.com`,
    }));
    const capped = capResult({ people }, 60_000);
    expect(bytes(capped)).toBeLessThanOrEqual(60_000);
    expect(capped).toMatchObject({ truncated: true, truncation: { field: "people" } });
  });

  // Customer.io's segment membership answers `ids` and `identifiers`, up to 30,000 each.
  it("keeps a result with two large arrays under the cap", () => {
    const ids = Array.from({ length: 20_000 }, (_, i) => `person-${i}`);
    const identifiers = ids.map((id) => ({ id, email: `${id}@example.com` }));
    const capped = capResult({ ids, identifiers }, 60_000);
    expect(bytes(capped)).toBeLessThanOrEqual(60_000);
    expect(capped.truncation?.field).toBe("identifiers, ids");
    expect(capped.truncation?.omitted).toBe(40_000 - capped.ids.length - capped.identifiers.length);
  });
});
