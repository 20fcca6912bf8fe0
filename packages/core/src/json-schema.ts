import { z } from "zod";

/** zod writes these bounds on every integer; they say nothing and cost catalogue bytes. */
const SAFE_INTEGER_BOUNDS: Readonly<Record<string, number>> = {
  minimum: Number.MIN_SAFE_INTEGER,
  maximum: Number.MAX_SAFE_INTEGER,
};

/** A zod schema as draft-07 JSON Schema without `$schema` or the safe-integer bounds. */
export function jsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, {
    target: "draft-07",
    io,
    unrepresentable: "any",
    override: ({ jsonSchema: node }) => {
      const bounds = node as Record<string, unknown>;
      for (const [key, value] of Object.entries(SAFE_INTEGER_BOUNDS))
        if (bounds[key] === value) delete bounds[key];
    },
  });
  return rest;
}
