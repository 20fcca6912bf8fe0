/**
 * OpenAI's strict mode for function calling (Structured Outputs) accepts a subset of JSON Schema:
 * every object closed (`additionalProperties: false`) and listing all its properties in `required`,
 * "optional" expressed as "may be null", and only the keywords OpenAI documents as supported.
 */

type Schema = Record<string, unknown>;

/**
 * The keywords strict mode accepts; the rest are dropped. A dropped narrowing (`minLength`,
 * `uniqueItems`, `not`) is still enforced by the tool, which answers a value the schema no longer
 * rules out with an `invalid_input` error the model can act on. A dropped definition (`oneOf`,
 * `$ref`) leaves a value of no known type, which makes the input unrepresentable.
 */
const SUPPORTED_KEYWORDS: ReadonlySet<string> = new Set([
  "type",
  "description",
  "enum",
  "const",
  "anyOf",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
]);

/** The string formats strict mode knows; others are dropped like any unsupported keyword. */
const SUPPORTED_FORMATS: ReadonlySet<string> = new Set([
  "date-time",
  "time",
  "date",
  "duration",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "uuid",
]);

/** Raised inside the conversion when a schema has no strict-mode equivalent. */
class Unrepresentable extends Error {}

/**
 * `parameters` (a tool's input as JSON Schema, root `type: "object"`) rewritten for strict mode:
 * every property listed in `required`, each optional one made nullable (`type: ["string", "null"]`,
 * or `anyOf: [schema, {type: "null"}]` when it has an enum, a const or alternatives), every object
 * `additionalProperties: false`, a `default` moved into the description (`(default 10)`), and
 * unsupported keywords dropped. Returns undefined when the input cannot be expressed in strict mode:
 * an open object (a record), a value of no declared type, an array without one item schema.
 */
export function strictParameters(parameters: Schema): Schema | undefined {
  if (parameters.type !== "object") return undefined;
  try {
    return strictNode(parameters);
  } catch (error) {
    if (error instanceof Unrepresentable) return undefined;
    throw error;
  }
}

function strictNode(node: unknown): Schema {
  if (!isSchema(node)) throw new Unrepresentable();
  const strict: Schema = Object.fromEntries(
    Object.entries(node).filter(([key]) => SUPPORTED_KEYWORDS.has(key)),
  );
  if (typeof strict.format === "string" && !SUPPORTED_FORMATS.has(strict.format)) delete strict.format;
  if ("default" in node) strict.description = withDefault(strict.description, node.default);
  // Strict mode needs to know what each value is; `{}` ("anything") has no strict form.
  if (!["type", "enum", "const", "anyOf"].some((key) => key in strict)) throw new Unrepresentable();
  if (Array.isArray(strict.anyOf)) strict.anyOf = strict.anyOf.map(strictNode);
  if (hasType(strict, "array") || "items" in strict) strict.items = strictNode(strict.items);
  return hasType(strict, "object") || "properties" in strict ? strictObject(strict) : strict;
}

/** Closes an object and requires all its properties, the optional ones as nullable. */
function strictObject(node: Schema): Schema {
  if (node.additionalProperties !== undefined && node.additionalProperties !== false) {
    throw new Unrepresentable();
  }
  const properties = isSchema(node.properties) ? node.properties : {};
  const required = new Set(Array.isArray(node.required) ? node.required : []);
  const strictProperties = Object.fromEntries(
    Object.entries(properties).map(([name, property]) => {
      const strict = strictNode(property);
      return [name, required.has(name) ? strict : nullable(strict)];
    }),
  );
  return {
    ...node,
    properties: strictProperties,
    required: Object.keys(properties),
    additionalProperties: false,
  };
}

/** `schema` also admitting null, the way OpenAI documents optional fields in strict mode. */
function nullable(schema: Schema): Schema {
  if (admitsNull(schema)) return schema;
  const { description, ...rest } = schema;
  const constrained = "enum" in rest || "const" in rest || "anyOf" in rest;
  if (rest.type !== undefined && !constrained) return { ...schema, type: [rest.type, "null"].flat() };
  if (Array.isArray(rest.anyOf) && Object.keys(rest).length === 1) {
    return { ...schema, anyOf: [...rest.anyOf, { type: "null" }] };
  }
  // An enum or const would still reject null beside `type: [..., "null"]`, so null gets its own branch.
  return { ...(description === undefined ? {} : { description }), anyOf: [rest, { type: "null" }] };
}

/**
 * `value` (a function call's parsed arguments) without the nulls strict mode has the model send for
 * optional parameters, so the tool sees them as not given. A null stays where `schema` (the tool's
 * own input schema) accepts null or requires the property, so the tool can reject or use it.
 */
export function dropAbsentNulls(value: unknown, schema: unknown): unknown {
  if (!isSchema(schema)) return value;
  if (Array.isArray(value)) return value.map((item) => dropAbsentNulls(item, schema.items));
  if (!isSchema(value) || !isSchema(schema.properties)) return value;
  const properties = schema.properties;
  const required = Array.isArray(schema.required) ? schema.required : [];
  return Object.fromEntries(
    Object.entries(value)
      .filter(([name, item]) => {
        const property = properties[name];
        return !(item === null && isSchema(property) && !required.includes(name) && !admitsNull(property));
      })
      .map(([name, item]) => [name, dropAbsentNulls(item, properties[name])]),
  );
}

/** Whether `schema` accepts null as it stands (a `{}` schema accepts anything). */
function admitsNull(schema: Schema): boolean {
  if (Array.isArray(schema.anyOf))
    return schema.anyOf.some((branch) => isSchema(branch) && admitsNull(branch));
  if (Array.isArray(schema.enum)) return schema.enum.includes(null);
  if ("const" in schema) return schema.const === null;
  return schema.type === undefined || hasType(schema, "null");
}

function hasType(schema: Schema, type: string): boolean {
  return Array.isArray(schema.type) ? schema.type.includes(type) : schema.type === type;
}

/** The description with the default the model can no longer see as a keyword. */
function withDefault(description: unknown, value: unknown): string {
  const json = JSON.stringify(value);
  return typeof description === "string" && description
    ? `${description} (default ${json})`
    : `Default ${json}`;
}

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
