import { ToolError } from "@toolkits/core";
import type { ValidateFunction } from "ajv";
import { schemaToNeutral } from "./ids.js";

type JsonSchema = Record<string, unknown>;

// The schemas (hundreds of KB) and ajv load on the first two-mode call, never at start-up.
let schemas: Promise<Readonly<Record<string, JsonSchema>>> | undefined;
let compiler: Promise<(schema: JsonSchema) => ValidateFunction> | undefined;
const neutralSchemas = new Map<string, JsonSchema>();
const validators = new Map<string, ValidateFunction>();

/**
 * The request-body JSON Schema of a two-mode tool in neutral names (`svc_id`, `svc_object_id`),
 * as the OpenAPI description gives it (fully inlined, OpenAPI 3.0 dialect).
 * @throws Error for a tool without a request body (a table bug).
 */
export async function requestSchema(tool: string): Promise<JsonSchema> {
  const cached = neutralSchemas.get(tool);
  if (cached) return cached;
  schemas ??= import("./schemas.generated.js").then((module) => module.REQUEST_SCHEMAS);
  const upstream = (await schemas)[tool];
  if (!upstream) throw new Error(`${tool} has no request-body schema`);
  const neutral = schemaToNeutral(upstream) as JsonSchema;
  neutralSchemas.set(tool, neutral);
  return neutral;
}

/**
 * Deepest nesting of arrays and objects a request body may have. Far beyond any body the API
 * documents, and shallow enough that every step after parsing (validation, renaming ids,
 * serialising) stays clear of the call stack's limit.
 */
export const MAX_BODY_DEPTH = 100;

/**
 * Parses `request_body` and validates it against the tool's neutral schema.
 * @returns the parsed body, still in neutral names.
 * @throws ToolError `invalid_input` with the parse error, for nesting deeper than MAX_BODY_DEPTH,
 *   or with every violation and its JSON pointer; in every case nothing has been sent.
 */
export async function parseBody(tool: string, text: string): Promise<unknown> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new ToolError(
      "invalid_input",
      `request_body is not valid JSON (${(error as Error).message}); nothing was sent. Call ${tool} with mode get_request_schema for the body's schema.`,
    );
  }
  if (nestingDepth(body, MAX_BODY_DEPTH) > MAX_BODY_DEPTH) {
    throw new ToolError(
      "invalid_input",
      `request_body nests arrays and objects more than ${MAX_BODY_DEPTH} levels deep, the most ${tool} accepts; nothing was sent. Flatten the data.`,
    );
  }
  const validate = await validator(tool);
  if (validate(body)) return body;
  const violations = [...new Set((validate.errors ?? []).map(describeError))];
  throw new ToolError(
    "invalid_input",
    `request_body does not match the schema of ${tool}; nothing was sent. Violations: ${violations.join("; ")}. Call with mode get_request_schema for the schema.`,
  );
}

/**
 * Levels of arrays and objects in `value` (a scalar has 0), counted level by level without
 * recursion and no further than `limit + 1`, so any depth is measured safely.
 */
function nestingDepth(value: unknown, limit: number): number {
  let depth = 0;
  for (let level = [value].filter(isContainer); level.length && depth <= limit; depth++) {
    level = level.flatMap((container) => Object.values(container)).filter(isContainer);
  }
  return depth;
}

const isContainer = (value: unknown): value is object => typeof value === "object" && value !== null;

async function validator(tool: string): Promise<ValidateFunction> {
  const cached = validators.get(tool);
  if (cached) return cached;
  compiler ??= createCompiler();
  const validate = (await compiler)(lenient(await requestSchema(tool)));
  validators.set(tool, validate);
  return validate;
}

async function createCompiler(): Promise<(schema: JsonSchema) => ValidateFunction> {
  const [{ Ajv }, { default: formats }] = await Promise.all([import("ajv"), import("ajv-formats")]);
  // Non-strict: the OpenAPI 3.0 dialect adds `nullable` (ajv supports it), `example`, `x-*`.
  const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
  (formats as unknown as (ajv: InstanceType<typeof Ajv>) => void)(ajv);
  // Formats the upstream names but JSON Schema does not define; the upstream checks them itself.
  for (const format of ["unix timestamp", "url", "base64"]) ajv.addFormat(format, true);
  return (schema) => ajv.compile(schema);
}

/**
 * The upstream's `oneOf` branches overlap (a branch without required members matches any
 * object), so a strict oneOf refuses valid bodies; they are checked as `anyOf` instead.
 */
function lenient(schema: unknown): JsonSchema {
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (!value || typeof value !== "object") return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, field]) => [
        key === "oneOf" && Array.isArray(field) ? "anyOf" : key,
        walk(field),
      ]),
    );
  };
  return walk(schema) as JsonSchema;
}

function describeError(error: NonNullable<ValidateFunction["errors"]>[number]): string {
  const pointer = error.instancePath || "/";
  const params = error.params as Record<string, unknown>;
  const detail =
    error.keyword === "additionalProperties"
      ? ` (${String(params.additionalProperty)})`
      : error.keyword === "enum"
        ? ` (${(params.allowedValues as unknown[]).join(", ")})`
        : "";
  return `${pointer}: ${error.message ?? error.keyword}${detail}`;
}
