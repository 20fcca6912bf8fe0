import { type AnyToolDefinition, defineTool, isSendableHeaderValue, ToolError } from "@toolkits/core";
import { z } from "zod";
import { parseBody, requestSchema } from "./body.js";
import { API_KEY_SECRET, createMarketingClient } from "./client.js";
import type { EndpointSpec, ParamSpec } from "./endpoint.js";
import { PERIOD_MAXIMUMS, VALUE_SETS } from "./endpoints.generated.js";
import type { UpstreamCall } from "./ids.js";
import { resultShape, toResult } from "./result.js";

type Input = Readonly<Record<string, unknown>>;

const SCHEMA_MODE = "get_request_schema";
const DOT_SEGMENT = /^\.{1,2}$/;
const SECONDS_PER_YEAR = 31_557_600;

/** The zod schema of one parameter: type, bounds, value set, default and requiredness from the row. */
export function paramSchema(param: ParamSpec): z.ZodType {
  let schema: z.ZodType;
  if (param.type === "integer") {
    const int = z
      .number()
      .int()
      .min(param.min ?? 0);
    schema = param.max === undefined ? int : int.max(param.max);
  } else if (param.type === "boolean") {
    schema = z.boolean();
  } else {
    schema = param.values ? z.enum(VALUE_SETS[param.values] as unknown as [string, ...string[]]) : z.string();
  }
  if (param.describe) schema = schema.describe(param.describe);
  if (param.required) return schema;
  // A conditional default (v1 metrics) is applied by the handler, only when its condition holds.
  if (param.default !== undefined && !param.when) return schema.default(param.default as never);
  return schema.optional();
}

/** The flat zod input of a tool: one property per row parameter, in table order. */
export function inputSchema(spec: EndpointSpec): z.ZodObject {
  return z.object(Object.fromEntries(spec.params.map((param) => [param.name, paramSchema(param)])));
}

// Loose: undocumented fields the upstream adds pass the client's validation too.
const outputSchema = (spec: EndpointSpec): z.ZodObject => z.looseObject(resultShape(spec));

/**
 * Turns a table row into a tool definition. The handler refuses bad input before anything is sent
 * (execute-mode parameters, the body against its schema, period counts per unit, v1/v2 metrics
 * parameters, time ranges, empty path values), builds the upstream call and returns the compacted,
 * paged and capped answer. Two-mode tools answer `get_request_schema` without an upstream call.
 */
export function toolFromEndpoint(spec: EndpointSpec): AnyToolDefinition {
  return defineTool({
    name: spec.name,
    title: spec.title,
    description: spec.description,
    // Built on first use: a server with a prebuilt listing builds no zod objects at start-up.
    input: () => inputSchema(spec),
    output: () => outputSchema(spec),
    hints: { ...spec.hints, openWorld: true },
    auth: { secret: API_KEY_SECRET },
    toolset: spec.toolset,
    async handler(input: Input, context) {
      if (spec.mode && input.mode === SCHEMA_MODE) return schemaAnswer(spec);
      const body = spec.mode ? await executeBody(spec, input) : undefined;
      const values = withConditionalDefaults(spec, input);
      checkRules(spec, values);
      const client = await createMarketingClient(context);
      const data = await client.send(spec, buildCall(spec, values, body));
      return toResult(spec, values, data);
    },
  });
}

async function schemaAnswer(spec: EndpointSpec): Promise<Record<string, unknown>> {
  const needed = spec.params.filter((p) => p.execRequired).map((p) => p.name);
  const also = needed.length ? `, and ${needed.join(", ")}` : "";
  return {
    schema: await requestSchema(spec.name),
    instructions: `Build a body that matches schema, then call ${spec.name} again with mode "execute", request_body set to the body as a JSON string${also}.`,
  };
}

/** Execute mode: the `^` parameters and request_body must be present; the body must parse and validate. */
async function executeBody(spec: EndpointSpec, input: Input): Promise<unknown> {
  const text = typeof input.request_body === "string" ? input.request_body : "";
  const missing = spec.params.filter((p) => p.execRequired && input[p.name] === undefined).map((p) => p.name);
  if (!text.trim()) missing.push("request_body");
  if (missing.length) {
    throw new ToolError(
      "invalid_input",
      `${spec.name} in execute mode needs ${missing.join(", ")}; nothing was sent. Call with mode get_request_schema to see the body's schema.`,
    );
  }
  return parseBody(spec.name, text);
}

function withConditionalDefaults(spec: EndpointSpec, input: Input): Input {
  const values: Record<string, unknown> = { ...input };
  for (const param of spec.params) {
    const { when } = param;
    if (!when || values[param.name] !== undefined || param.default === undefined) continue;
    if (values[when.param] === when.value) values[param.name] = param.default;
  }
  return values;
}

/** Limits the input schema cannot express because they depend on another parameter. */
function checkRules(spec: EndpointSpec, input: Input): void {
  const problems = [
    ...spec.params.flatMap((param) => conditionProblem(param, input)),
    ...spec.params.flatMap((param) => pathProblem(param, input)),
    ...spec.params.flatMap((param) => valueProblem(param, input)),
    ...periodProblem(spec, input),
    ...rangeProblem(spec, input),
  ];
  if (problems.length) {
    throw new ToolError("invalid_input", `Invalid arguments for ${spec.name}: ${problems.join("; ")}.`);
  }
}

function valueProblem(param: ParamSpec, input: Input): string[] {
  const value = input[param.name];
  if (typeof value !== "string") return [];
  if (param.pattern && !new RegExp(param.pattern).test(value)) {
    return [`${param.name} "${value}" is not a value the API takes here (see the tool description)`];
  }
  // Core refuses it too but names only the header; this names the tool parameter.
  if (param.in === "header" && !isSendableHeaderValue(value)) {
    return [
      `${param.name} must be Latin-1 text without line breaks (a language tag such as "fr" or "pt-BR")`,
    ];
  }
  return [];
}

function conditionProblem(param: ParamSpec, input: Input): string[] {
  const { when } = param;
  if (!when || input[param.name] === undefined || input[when.param] === when.value) return [];
  return [`${param.name} applies only when ${when.param} is "${when.value}"`];
}

function pathProblem(param: ParamSpec, input: Input): string[] {
  const value = input[param.name];
  if (param.in !== "path" || typeof value !== "string") return [];
  if (!value.trim() && !(param.allowEmpty && value === "")) return [`${param.name} must not be empty`];
  return DOT_SEGMENT.test(value) ? [`${param.name} cannot be "${value}"`] : [];
}

function periodProblem(spec: EndpointSpec, input: Input): string[] {
  const periods = spec.periods;
  const count = periods ? input[periods.count] : undefined;
  const unit = periods ? input[periods.unit] : undefined;
  if (!periods || typeof count !== "number" || typeof unit !== "string") return [];
  const max = unit === "months" ? periods.monthsMax : PERIOD_MAXIMUMS[unit as keyof typeof PERIOD_MAXIMUMS];
  if (max === undefined || count <= max) return [];
  return [`${periods.count} is ${count}, but at most ${max} when ${periods.unit} is ${unit}`];
}

function rangeProblem(spec: EndpointSpec, input: Input): string[] {
  const range = spec.range;
  const start = range ? input[range.start] : undefined;
  const end = range ? input[range.end] : undefined;
  if (!range || typeof start !== "number" || typeof end !== "number") return [];
  if (end < start) return [`${range.end} is before ${range.start}`];
  if (range.maxSeconds !== undefined && end - start > range.maxSeconds) {
    const years = range.maxSeconds / SECONDS_PER_YEAR;
    return [`${range.end} is more than ${years} years (${range.maxSeconds} s) after ${range.start}`];
  }
  return [];
}

/** The upstream call from validated input, keyed by upstream names; ids still neutral. */
function buildCall(spec: EndpointSpec, input: Input, body: unknown): UpstreamCall {
  const call: UpstreamCall = { path: spec.path, pathParams: {}, query: {}, headers: {} };
  for (const param of spec.params) {
    const value = input[param.name];
    if (value === undefined || !param.upstream) continue;
    if (param.in === "path" && value === "") {
      // An allowed empty segment (default language): core refuses empty placeholders.
      call.path = call.path.replace(`{${param.upstream}}`, "");
    } else if (param.in === "path") call.pathParams[param.upstream] = value as string | number;
    else if (param.in === "query") call.query[param.upstream] = value as string | number | boolean;
    else if (param.in === "header") call.headers[param.upstream] = String(value);
  }
  if (body !== undefined) call.body = body;
  return call;
}
