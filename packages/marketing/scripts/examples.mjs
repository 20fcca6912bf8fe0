// Example data for the sandbox: answers built from the OpenAPI description's response examples and
// schemas, and one request body per two-mode tool. Whether a body passes the tool's own validation
// is checked by test/generated.test.ts through src/body.ts, so validation has one implementation.
import { successResponse } from "./table.mjs";

const MAX_DEPTH = 12;
const JSON_TYPES = { integer: "number", number: "number", string: "string", boolean: "boolean" };

/** The sandbox's answer for an operation: its first 2xx status and a body (none for an empty answer). */
export function responseExample(op) {
  const [status, response] = successResponse(op);
  const media = response.content?.["application/json"];
  if (!media) return { status: Number(status) };
  return { status: Number(status), body: media.example ?? sample(media.schema) ?? {} };
}

/**
 * A request body for a two-mode tool: overrides.json's `requestExample` (for when the upstream's own
 * example is invalid), else the upstream's example, else only the schema's required members.
 */
export function requestExample(op, given) {
  const media = op.requestBody.content["application/json"];
  return given ?? media.example ?? media.schema.example ?? minimal(media.schema);
}

/** A value matching `schema`, from its examples where it has them. */
function sample(schema, depth = 0) {
  if (!schema || typeof schema !== "object" || depth > MAX_DEPTH) return undefined;
  if (schema.example !== undefined && schema.example !== null) return structuredClone(schema.example);
  if (schema.oneOf || schema.anyOf) return sample((schema.oneOf ?? schema.anyOf)[0], depth + 1);
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map((part) => sample(part, depth + 1) ?? {}));
  if (schema.enum) return schema.enum[0];
  switch (schema.type) {
    case "object":
      return sampleObject(schema, depth);
    case "array": {
      const item = sample(schema.items, depth + 1);
      return item === undefined ? [] : [item];
    }
    case "integer":
    case "number":
      return 1;
    case "boolean":
      return false;
    case "string":
      return "example";
    default:
      return schema.properties ? sampleObject(schema, depth) : undefined;
  }
}

function sampleObject(schema, depth) {
  const out = {};
  for (const [key, prop] of Object.entries(schema.properties ?? {})) {
    const value = sample(prop, depth + 1);
    if (value !== undefined && value !== null) out[key] = value;
  }
  return out;
}

/** Only the required members, for a minimal request body. */
function minimal(schema, depth = 0) {
  if (!schema || typeof schema !== "object" || depth > MAX_DEPTH) return undefined;
  if (schema.oneOf || schema.anyOf) return minimal((schema.oneOf ?? schema.anyOf)[0], depth + 1);
  if (schema.allOf) return minimal(fold(schema.allOf), depth + 1);
  if (schema.type === "object" || schema.properties) {
    const out = {};
    for (const key of schema.required ?? []) out[key] = minimal(schema.properties?.[key] ?? {}, depth + 1);
    return out;
  }
  const example = schema.example;
  if (example !== undefined && example !== null && typeof example === JSON_TYPES[schema.type]) return example;
  return sample({ ...schema, example: undefined }, depth);
}

/** allOf parts folded into one object schema: properties and required members united. */
function fold(parts) {
  const all = parts.map((part) => (part.allOf ? fold(part.allOf) : part));
  return {
    type: "object",
    properties: Object.assign({}, ...all.map((part) => part.properties ?? {})),
    required: all.flatMap((part) => part.required ?? []),
  };
}
