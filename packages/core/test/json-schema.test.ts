import { describe, expect, it } from "vitest";
import { z } from "zod";
import { jsonSchema } from "../src/mcp/index.js";

describe("jsonSchema", () => {
  it("closes an input without parameters, which strict-mode converters cannot infer, and only that one", () => {
    expect(jsonSchema(z.object({}), "input")).toEqual({
      type: "object",
      properties: {},
      additionalProperties: false,
    });
    expect(jsonSchema(z.object({ id: z.string() }), "input")).toEqual({
      type: "object",
      properties: { id: { type: "string" } },
      required: ["id"],
    });
  });

  it("spells a union of primitives as anyOf branches of one type each, not a type list", () => {
    const value = z.union([z.string(), z.number(), z.boolean()]).describe("A cell");
    expect(jsonSchema(z.object({ value, blank: z.string().nullable() }), "output")).toEqual({
      type: "object",
      properties: {
        value: {
          description: "A cell",
          anyOf: [{ type: "string" }, { type: "number" }, { type: "boolean" }],
        },
        blank: { anyOf: [{ type: "string" }, { type: "null" }] },
      },
      required: ["value", "blank"],
      additionalProperties: false,
    });
  });

  it("leaves no empty schema where an array or a free-form object says the same", () => {
    const output = z.object({
      rows: z.array(z.unknown()).optional(),
      attributes: z.record(z.string(), z.unknown()).optional(),
      nested: z.array(z.record(z.string(), z.array(z.unknown()))).optional(),
    });
    expect(jsonSchema(output, "output").properties).toEqual({
      rows: { type: "array" },
      attributes: { type: "object", additionalProperties: true },
      nested: { type: "array", items: { type: "object", additionalProperties: { type: "array" } } },
    });
  });

  it("keeps data that looks like a schema: defaults, enums and constants", () => {
    const input = z.object({ filter: z.record(z.string(), z.string()).default({}) });
    expect(jsonSchema(input, "input").properties).toEqual({
      filter: { type: "object", additionalProperties: { type: "string" }, default: {} },
    });
  });
});
