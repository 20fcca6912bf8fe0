import { z } from "zod";

type Schema = Record<string, unknown>;

/** zod writes these bounds on every integer; they say nothing and cost catalogue bytes. */
const SAFE_INTEGER_BOUNDS: Readonly<Record<string, number>> = {
  minimum: Number.MIN_SAFE_INTEGER,
  maximum: Number.MAX_SAFE_INTEGER,
};

/**
 * A zod schema as draft-07 JSON Schema without `$schema` or the safe-integer bounds, in the form
 * every client reads alike (see `portable`). An input without properties says
 * `additionalProperties: false`, as `parseArguments` refuses any argument a tool does not declare:
 * strict-mode converters (the OpenAI Agents SDK's) cannot infer it from an empty object.
 */
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
  const out = portable(rest) as Schema;
  const properties = isSchema(out.properties) ? Object.keys(out.properties) : [];
  if (io === "input" && !properties.length && out.additionalProperties === undefined)
    out.additionalProperties = false;
  return out;
}

/**
 * `node` rewritten where zod's spelling is legal JSON Schema that some clients misread: a `type`
 * list (which zod makes of a union of primitives) becomes `anyOf` branches of one type each, as
 * single-type dialects (Gemini's function declarations) reject lists; and no empty schema `{}` is
 * left where its keyword can say the same: `items: {}` is dropped, `additionalProperties: {}` is
 * `true`, and `propertyNames: { type: "string" }`, which every JSON key meets, is dropped.
 */
function portable(node: unknown): unknown {
  if (!isSchema(node)) return node;
  const out: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "type" && Array.isArray(value) && !("anyOf" in node))
      out.anyOf = value.map((type) => ({ type }));
    else if (key === "additionalProperties" && isEmpty(value)) out[key] = true;
    else if (!(key === "items" && isEmpty(value)) && !(key === "propertyNames" && isStringKeys(value)))
      out[key] = SUBSCHEMAS.get(key)?.(value) ?? value;
  }
  return out;
}

const each = (value: unknown) => (Array.isArray(value) ? value.map(portable) : portable(value));
const byName = (value: unknown) =>
  isSchema(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, portable(v)])) : value;

/** The draft-07 keywords whose values are subschemas (one, a list, or a map by name). */
const SUBSCHEMAS: ReadonlyMap<string, (value: unknown) => unknown> = new Map([
  ...[
    "additionalItems",
    "contains",
    "additionalProperties",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
  ].map((key) => [key, portable] as const),
  ...["items", "anyOf", "allOf", "oneOf"].map((key) => [key, each] as const),
  ...["properties", "patternProperties", "dependencies", "definitions"].map((key) => [key, byName] as const),
]);

const isEmpty = (value: unknown) => isSchema(value) && Object.keys(value).length === 0;
const isStringKeys = (value: unknown) =>
  isSchema(value) && Object.keys(value).length === 1 && value.type === "string";

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
