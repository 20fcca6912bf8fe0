import fc from "fast-check";

/**
 * The part of JSON Schema that `toMcpTool(tool).inputSchema` uses: flat objects of strings,
 * integers, numbers and booleans (with bounds and enums), arrays of those, and `anyOf` unions.
 */
export interface JsonSchema {
  type?: string | string[];
  properties?: Readonly<Record<string, JsonSchema>>;
  required?: readonly string[];
  enum?: readonly unknown[];
  anyOf?: readonly JsonSchema[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  /** For a record (an object with keys of its own choosing): the schema of its values, or `true` for any. */
  additionalProperties?: boolean | JsonSchema;
  default?: unknown;
  description?: string;
}

/** What rule an invalid argument set breaks. */
export type Breakage =
  | "wrong type"
  | "out of bounds"
  | "unknown enum value"
  | "unknown parameter"
  | "missing required";

/** Arguments that break exactly one rule of a schema, with the parameter that breaks it. */
export interface InvalidArguments {
  args: Record<string, unknown>;
  /** The parameter an `invalid_input` answer must name. */
  parameter: string;
  rule: Breakage;
}

export interface ArgumentOptions {
  /**
   * Known-good values per parameter (ids a sandbox holds, a well-formed request body), mixed in
   * with the generated ones so that valid arguments also reach the deeper code paths. Each must
   * satisfy the parameter's schema.
   */
  samples?: Readonly<Record<string, readonly unknown[]>>;
}

/**
 * Names of `Object.prototype` members: as keys of plain objects they are found where nothing was
 * set (`counts["constructor"]` is a function) or set the prototype (`target["__proto__"] = …`).
 * Generated inputs use them as record keys, as keys inside JSON-object strings and as string values.
 */
export const PROTOTYPE_NAMES: readonly string[] = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "__defineGetter__",
  "valueOf",
];

/** JSON objects that pollute `Object.prototype` where code merges them into plain objects unguarded. */
const POLLUTING_JSON = [
  '{"__proto__":{"polluted":"yes"}}',
  '{"constructor":{"prototype":{"polluted":"yes"}}}',
];

// Strings that have broken URL building, path expansion and parsers elsewhere.
const AWKWARD_STRINGS = [
  ...PROTOTYPE_NAMES,
  ...POLLUTING_JSON,
  ".",
  "..",
  "a/b",
  "../etc/passwd",
  "%2F",
  "?x=1#y",
  " ",
  " padded ",
  "null",
  "0",
  "-1",
  "1e3",
  "true",
  "<b>x</b>",
  `'"\\`,
  "é漢字🙂",
  "\u0000\u001f",
  "Sheet1!A1:B2",
  "2024-02-30T25:00:00Z",
  "2024-01-01T00:00:00Z",
];

// Names no tool declares that code indexing plain objects could mistake for its own. (`__proto__`
// is left out: the MCP SDK's request parsing drops it before a tool sees the arguments.)
const AWKWARD_NAMES = [
  ...PROTOTYPE_NAMES.filter((name) => name !== "__proto__"),
  "api_key",
  "LIMIT",
  "limit ",
];

const MAX_ARRAY = 4;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** Arguments that satisfy `schema`: required properties always, optional ones sometimes. */
export function argumentsFor(
  schema: JsonSchema,
  options: ArgumentOptions = {},
): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const model = Object.fromEntries(
    Object.entries(properties).map(([name, property]) => [
      name,
      withSamples(valueFor(property), property, options.samples?.[name]),
    ]),
  );
  return fc.record(model, { requiredKeys: [...(schema.required ?? [])], noNullPrototype: true });
}

/**
 * Arguments that break `schema` in exactly one way: a value of the wrong JSON type, a number or
 * length out of bounds, a value outside an enum, a parameter the schema does not declare, or a
 * required parameter left out. The rest of the arguments are valid.
 */
export function invalidArgumentsFor(
  schema: JsonSchema,
  options: ArgumentOptions = {},
): fc.Arbitrary<InvalidArguments> {
  const properties = schema.properties ?? {};
  const breakages = [
    unknownParameter(properties),
    ...Object.entries(properties).flatMap(([name, property]) => breakagesOf(name, property)),
    ...(schema.required ?? []).map((name) =>
      fc.constant({ parameter: name, rule: "missing required" as const, value: undefined }),
    ),
  ];
  return fc.tuple(argumentsFor(schema, options), fc.oneof(...breakages)).map(([valid, broken]) => {
    const { [broken.parameter]: _, ...rest } = valid;
    // A computed key, so `__proto__` becomes an own property rather than the prototype.
    const args = broken.rule === "missing required" ? rest : { ...rest, [broken.parameter]: broken.value };
    return { args, parameter: broken.parameter, rule: broken.rule };
  });
}

interface Broken {
  parameter: string;
  rule: Breakage;
  value: unknown;
}

/**
 * `generated`, mixed with the known-good `samples` and, for samples that are JSON objects in a
 * string (a request body, a map of cells), with copies holding a prototype-member key at each level.
 */
function withSamples(
  generated: fc.Arbitrary<unknown>,
  schema: JsonSchema,
  samples: readonly unknown[] | undefined,
) {
  if (!samples?.length) return generated;
  const fits = (text: string) =>
    text.length >= (schema.minLength ?? 0) &&
    (schema.maxLength === undefined || text.length <= schema.maxLength);
  const variants = samples.flatMap(prototypeKeyVariants).filter(fits);
  const known = [fc.constantFrom(...samples), ...(variants.length ? [fc.constantFrom(...variants)] : [])];
  return fc.oneof(generated, ...known);
}

/** The most variants made of one sample: one key name at each level, besides its pollution payload. */
const MAX_VARIANTS = 40;

/**
 * Copies of `sample`, when it is a string holding a JSON object, with one more key named like an
 * `Object.prototype` member in one of its objects: holding a sibling's value (so the rest of the
 * document stays valid) or a pollution payload. `__proto__` stays an own key, as JSON.parse makes it.
 */
function prototypeKeyVariants(sample: unknown): string[] {
  if (typeof sample !== "string" || !sample.trimStart().startsWith("{")) return [];
  let document: unknown;
  try {
    document = JSON.parse(sample);
  } catch {
    return [];
  }
  const variants: string[] = [];
  const objects = objectPaths(document);
  for (const path of objects)
    for (const name of PROTOTYPE_NAMES) {
      const target = at(document, path) as Record<string, unknown>;
      const sibling = Object.values(target)[0];
      for (const value of [sibling ?? "x", { polluted: "yes" }]) {
        const copy = JSON.parse(sample) as unknown;
        Object.defineProperty(at(copy, path), name, {
          value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
        variants.push(JSON.stringify(copy));
      }
    }
  // Spread over the levels rather than the first level's names only.
  const step = Math.max(1, Math.ceil(variants.length / MAX_VARIANTS));
  return [...new Set(variants.filter((_, i) => i % step === 0))];
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The paths of every object in a JSON document, outermost first (to a depth of 4). */
function objectPaths(value: unknown, path: string[] = []): string[][] {
  if (path.length > 4) return [];
  const own = isPlainObject(value) ? [path] : [];
  const children =
    typeof value === "object" && value !== null
      ? Object.entries(value).flatMap(([key, child]) => objectPaths(child, [...path, key]))
      : [];
  return [...own, ...children];
}

const at = (value: unknown, path: readonly string[]): unknown =>
  path.reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], value);

/** A value satisfying one property's schema. */
export function valueFor(schema: JsonSchema): fc.Arbitrary<unknown> {
  if (schema.anyOf?.length) return fc.oneof(...schema.anyOf.map(valueFor));
  if (schema.enum?.length) return fc.constantFrom(...schema.enum);
  switch (primaryType(schema)) {
    case "string":
      return stringWithin(schema.minLength ?? 0, schema.maxLength);
    case "integer":
      return integerWithin(schema);
    case "number":
      return fc.double({ ...numberBounds(schema), noNaN: true, noDefaultInfinity: true });
    case "boolean":
      return fc.boolean();
    case "array":
      return fc.array(schema.items ? valueFor(schema.items) : fc.string(), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? MAX_ARRAY, MAX_ARRAY)),
      });
    case "object":
      return schema.additionalProperties ? recordFor(schema) : argumentsFor(schema);
    default:
      return fc.jsonValue();
  }
}

/**
 * An object with the schema's declared properties and keys of its own choosing, the names of
 * `Object.prototype` members among them (each an own property, `__proto__` too).
 */
function recordFor(schema: JsonSchema): fc.Arbitrary<Record<string, unknown>> {
  const extra = schema.additionalProperties;
  const value = typeof extra === "object" ? valueFor(extra) : fc.jsonValue();
  const declared = Object.keys(schema.properties ?? {});
  const key = fc
    .oneof(fc.constantFrom(...PROTOTYPE_NAMES), fc.string({ minLength: 1, maxLength: 12 }))
    .filter((name) => !declared.includes(name));
  return fc
    .tuple(argumentsFor(schema), fc.dictionary(key, value, { maxKeys: MAX_ARRAY, noNullPrototype: true }))
    .map(([known, more]) => {
      const record: Record<string, unknown> = { ...known };
      for (const [name, item] of Object.entries(more))
        Object.defineProperty(record, name, {
          value: item,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      return record;
    });
}

/**
 * Strings whose UTF-16 length is within bounds (zod counts UTF-16 units, JSON Schema code points;
 * inside both is valid for both): random ASCII, random Unicode and awkward known cases.
 */
function stringWithin(min: number, max: number | undefined): fc.Arbitrary<string> {
  const fits = (text: string) => text.length >= min && (max === undefined || text.length <= max);
  const cap = max ?? Math.max(min, 40);
  const awkward = AWKWARD_STRINGS.filter(fits);
  const random = [
    fc.string({ minLength: min, maxLength: cap }),
    fc.string({ unit: "grapheme", minLength: min, maxLength: cap }).filter(fits),
  ];
  return awkward.length ? fc.oneof(...random, fc.constantFrom(...awkward)) : fc.oneof(...random);
}

function primaryType(schema: JsonSchema): string | undefined {
  return Array.isArray(schema.type) ? schema.type[0] : (schema.type as string | undefined);
}

/** The JSON types a schema accepts (`integer` implies nothing else: 1.5 is not one). */
function acceptedTypes(schema: JsonSchema): Set<string> {
  if (schema.anyOf) return new Set(schema.anyOf.flatMap((option) => [...acceptedTypes(option)]));
  if (schema.enum) return new Set(schema.enum.map((value) => typeof value));
  if (schema.type === undefined)
    return new Set(["string", "integer", "number", "boolean", "array", "object"]);
  return new Set(Array.isArray(schema.type) ? schema.type : [schema.type]);
}

/** The schema's inclusive integer bounds; undefined where it sets none. */
function integerBounds(schema: JsonSchema): { min?: number; max?: number } {
  const min = [
    schema.minimum,
    schema.exclusiveMinimum === undefined ? undefined : Math.floor(schema.exclusiveMinimum) + 1,
  ];
  const max = [
    schema.maximum,
    schema.exclusiveMaximum === undefined ? undefined : Math.ceil(schema.exclusiveMaximum) - 1,
  ];
  const defined = (values: (number | undefined)[]) => values.filter((value) => value !== undefined);
  const low = defined(min);
  const high = defined(max);
  return {
    min: low.length ? Math.max(...low) : undefined,
    max: high.length ? Math.min(...high) : undefined,
  };
}

/** Integers within the schema's bounds (fast-check favours the bounds themselves). */
function integerWithin(schema: JsonSchema): fc.Arbitrary<number> {
  const { min, max } = integerBounds(schema);
  const low = min ?? Math.min(INT32_MIN, max ?? INT32_MIN);
  return fc.integer({ min: low, max: max ?? Math.max(INT32_MAX, low) });
}

function numberBounds(schema: JsonSchema): { min?: number; max?: number } {
  return {
    min: schema.minimum ?? schema.exclusiveMinimum,
    max: schema.maximum ?? schema.exclusiveMaximum,
  };
}

// One sample value of each JSON type, by the name acceptedTypes() uses.
const OF_TYPE: Readonly<Record<string, fc.Arbitrary<unknown>>> = {
  string: fc.oneof(fc.string(), fc.constantFrom("1", "true", "[]")),
  integer: fc.integer(),
  number: fc.double({ noNaN: true, noDefaultInfinity: true, noInteger: true }),
  boolean: fc.boolean(),
  array: fc.array(fc.string(), { maxLength: 2 }),
  object: fc.constantFrom({}, { value: 1 }),
  null: fc.constant(null),
};

function breakagesOf(name: string, schema: JsonSchema): fc.Arbitrary<Broken>[] {
  const broken = (rule: Breakage) => (value: unknown) => ({ parameter: name, rule, value });
  const out = [wrongType(schema).map(broken("wrong type"))];
  const bounds = outOfBounds(schema);
  if (bounds) out.push(bounds.map(broken("out of bounds")));
  if (schema.enum) {
    const allowed = schema.enum;
    out.push(
      fc
        .oneof(fc.string(), fc.constantFrom(...allowed.map((value) => `${String(value).toUpperCase()} `)))
        .filter((value) => !allowed.includes(value))
        .map(broken("unknown enum value")),
    );
  }
  return out;
}

/** A value of a JSON type the schema does not accept (`null` included: nothing here is nullable). */
function wrongType(schema: JsonSchema): fc.Arbitrary<unknown> {
  const accepted = acceptedTypes(schema);
  // An integer is also a number, so a schema taking numbers takes integers too.
  if (accepted.has("number")) accepted.add("integer");
  const wrong = Object.entries(OF_TYPE)
    .filter(([type]) => !accepted.has(type))
    .map(([, value]) => value);
  return fc.oneof(...wrong);
}

/** A value of the right type but outside the schema's bounds, if it has any. */
function outOfBounds(schema: JsonSchema): fc.Arbitrary<unknown> | undefined {
  if (schema.anyOf) {
    const options = schema.anyOf.map(outOfBounds).filter((option) => option !== undefined);
    // Only a value outside every branch is invalid: with a bare string branch there is none.
    const permissive = schema.anyOf.some((option) => !outOfBounds(option) && !option.enum);
    return options.length && !permissive ? fc.oneof(...options) : undefined;
  }
  switch (primaryType(schema)) {
    case "integer":
      return integerOutOfBounds(schema);
    case "string":
      return lengthOutOfBounds(schema.minLength, schema.maxLength);
    case "array":
      return arrayOutOfBounds(schema);
    default:
      return undefined;
  }
}

function integerOutOfBounds(schema: JsonSchema): fc.Arbitrary<unknown> {
  const { min, max } = integerBounds(schema);
  const options: fc.Arbitrary<unknown>[] = [integerWithin(schema).map((value) => value + 0.5)];
  if (min !== undefined && min > -MAX_SAFE) options.push(fc.integer({ min: -MAX_SAFE, max: min - 1 }));
  if (max !== undefined && max < MAX_SAFE) options.push(fc.integer({ min: max + 1, max: MAX_SAFE }));
  return fc.oneof(...options);
}

function lengthOutOfBounds(min = 0, max: number | undefined): fc.Arbitrary<unknown> | undefined {
  const options: fc.Arbitrary<unknown>[] = [];
  if (min > 0) options.push(fc.string({ maxLength: min - 1 }));
  if (max !== undefined) options.push(fc.string({ minLength: max + 1, maxLength: max + 20 }));
  return options.length ? fc.oneof(...options) : undefined;
}

/** An array with one item that breaks the item schema, or too few or too many items. */
function arrayOutOfBounds(schema: JsonSchema): fc.Arbitrary<unknown> | undefined {
  const item = schema.items ?? {};
  const good = valueFor(item);
  const badItem = fc.oneof(wrongType(item), ...[outOfBounds(item)].filter((a) => a !== undefined));
  const options: fc.Arbitrary<unknown>[] = [
    fc
      .tuple(fc.array(good, { maxLength: 2 }), badItem, fc.array(good, { maxLength: 2 }))
      .map(([before, bad, after]) => [...before, bad, ...after]),
  ];
  if (schema.minItems) options.push(fc.array(good, { maxLength: schema.minItems - 1 }));
  if (schema.maxItems !== undefined) {
    const over = schema.maxItems + 1;
    options.push(fc.array(good, { minLength: over, maxLength: over + 2 }));
  }
  return fc.oneof(...options);
}

function unknownParameter(properties: Readonly<Record<string, JsonSchema>>): fc.Arbitrary<Broken> {
  const name = fc
    .oneof(fc.constantFrom(...AWKWARD_NAMES), fc.string({ minLength: 1, maxLength: 20 }))
    .filter((candidate) => candidate !== "__proto__" && !Object.hasOwn(properties, candidate));
  return fc.record({
    parameter: name,
    rule: fc.constant("unknown parameter" as const),
    value: fc.oneof(fc.string(), fc.integer(), fc.boolean()),
  });
}

/**
 * Whether an `invalid_input` message names `parameter` the way core's validation does:
 * `name: problem` (`name.0: …` for an array item) or `has no parameter name`.
 */
export function namesParameter(message: string, parameter: string): boolean {
  const name = parameter.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?:: |; )${name}(?:\\.\\d+)?: |has no parameter (?:.+, )?${name}(?:, |\\. )`, "s").test(
    message,
  );
}
