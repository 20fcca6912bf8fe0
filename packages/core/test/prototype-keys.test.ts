import { describe, expect, it } from "vitest";
import { capResult, compact, secretsFromMap } from "../src/index.js";

/** Every name `Object.prototype` answers to, `__proto__` included: what a plain-object lookup gets wrong. */
const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype);

/** An object as JSON.parse builds it from upstream text: each key an own property, even `__proto__`. */
const fromJson = (entries: [string, unknown][]): Record<string, unknown> =>
  JSON.parse(
    `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`).join(",")}}`,
  );

/** The own property `key` of `value`, never an inherited one. */
const ownValue = (value: object, key: string): unknown => Object.getOwnPropertyDescriptor(value, key)?.value;

const own = (value: object): [string, unknown][] =>
  Object.getOwnPropertyNames(value).map((key) => [key, ownValue(value, key)]);

describe("compact with keys named like Object.prototype members", () => {
  it("includes __proto__ among the names tested", () => {
    expect(PROTOTYPE_NAMES).toContain("__proto__");
    expect(PROTOTYPE_NAMES).toContain("constructor");
  });

  it.each(PROTOTYPE_NAMES)("keeps a field named %s as an own property with its value", (name) => {
    const data = fromJson([
      [name, { nested: name, gone: null }],
      ["plain", 1],
    ]);
    const out = compact(data);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(own(out)).toEqual([
      [name, { nested: name }],
      ["plain", 1],
    ]);
    expect(JSON.parse(JSON.stringify(out))).toEqual(
      fromJson([
        [name, { nested: name }],
        ["plain", 1],
      ]),
    );
  });

  it.each(PROTOTYPE_NAMES)("drops a null field named %s instead of finding Object.prototype's", (name) => {
    const out = compact(fromJson([[name, null]]));
    expect(Object.getOwnPropertyNames(out)).toEqual([]);
    expect(JSON.stringify(out)).toBe("{}");
  });

  it("compacts objects without a prototype too", () => {
    const bare = Object.assign(Object.create(null), { a: null, b: { c: null, d: 1 } });
    expect(JSON.stringify(compact(bare))).toBe('{"b":{"d":1}}');
  });
});

describe("capResult with keys named like Object.prototype members or holding dots", () => {
  const items = Array.from({ length: 200 }, (_, i) => ({ id: `item-${i}`, text: "x".repeat(60) }));

  it.each([...PROTOTYPE_NAMES, "a.b", "toString.length", "__proto__.polluted"])(
    "cuts the array under %s and leaves every other key and the prototype alone",
    (name) => {
      const data = fromJson([
        [name, items],
        ["note", "kept"],
      ]);
      const capped = capResult(data, 2_000);
      expect(Buffer.byteLength(JSON.stringify(capped))).toBeLessThanOrEqual(2_000);
      expect(Object.getPrototypeOf(capped)).toBe(Object.prototype);
      const cut = ownValue(capped, name) as unknown[];
      expect(Array.isArray(cut)).toBe(true);
      expect(cut.length).toBeGreaterThan(0);
      expect(cut).toEqual(items.slice(0, cut.length));
      expect(capped.note).toBe("kept");
      expect(capped.truncation).toMatchObject({ field: name, omitted: items.length - cut.length });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    },
  );

  it("cuts an array nested under a key named __proto__", () => {
    const data = fromJson([["__proto__", { constructor: items }]]);
    const capped = capResult(data, 2_000);
    const inner = ownValue(capped, "__proto__") as Record<string, unknown[]>;
    expect(Object.hasOwn(inner, "constructor")).toBe(true);
    expect(inner.constructor?.length).toBeLessThan(items.length);
    expect(capped.truncation?.field).toBe("__proto__.constructor");
  });

  it("continues a limit/offset page whose list is named constructor", () => {
    const page = fromJson([
      ["constructor", items],
      ["limit", 200],
      ["offset", 400],
      ["more", false],
    ]);
    const capped = capResult(page, 2_000);
    const kept = (ownValue(capped, "constructor") as unknown[]).length;
    expect(capped).toMatchObject({ more: true, next_offset: 400 + kept });
  });
});

describe("secretsFromMap", () => {
  it.each(PROTOTYPE_NAMES)("knows no secret named %s unless given one", async (name) => {
    expect(await secretsFromMap({})(name)).toBeUndefined();
    expect(await secretsFromMap(fromJson([[name, "value-of-it"]]) as Record<string, string>)(name)).toBe(
      "value-of-it",
    );
  });
});
