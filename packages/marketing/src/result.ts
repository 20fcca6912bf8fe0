import { capResult, offsetPage, offsetPageShape, tokenPage, tokenPageShape } from "@toolkits/core";
import { z } from "zod";
import type { EndpointSpec, ValueType } from "./endpoint.js";

/** Largest result a tool returns, in bytes of JSON; longer ones are cut with a marker. */
export const MAX_RESULT_BYTES = 60_000;

/**
 * The upstream answer as a tool result: always an object (`{ ok: true }` for an empty answer,
 * `{ result }` for anything else that is not an object), with the upstream's `next` cursor as
 * `more` + `next_page_token` (+ `next_page_parameter`, the parameter to pass it back as), or offset
 * paging fields, and capped at MAX_RESULT_BYTES.
 */
export function toResult(
  spec: EndpointSpec,
  input: Readonly<Record<string, unknown>>,
  data: unknown,
): Record<string, unknown> {
  const base = data === undefined || data === "" ? { ok: true } : isObject(data) ? data : { result: data };
  const paged = withPaging(spec, input, base);
  return capResult(paged, MAX_RESULT_BYTES, (field, kept) => truncationHint(spec, field, kept));
}

/**
 * The top-level fields of a tool's result besides the paging ones, with their JSON types, as the
 * upstream documents them (`EndpointSpec.response`) and toResult shapes them: `ok` for an empty
 * answer, `result` for an array or a primitive, and the object's own fields without `next`, which
 * paging replaces.
 */
export function resultFields(spec: EndpointSpec): Record<string, ValueType> {
  const { response, paging } = spec;
  if (response === "empty") return { ok: "boolean" };
  if (typeof response === "string") return { result: response };
  const fields: Record<string, ValueType> = { ...response };
  if (paging && "token" in paging) delete fields.next;
  return fields;
}

/**
 * The output schema's properties: each of resultFields optional and of its documented type (the
 * client validates structuredContent against them, so arrays and objects are free-form: their
 * items and members vary), then the paging fields, optional for a two-mode tool since its schema
 * mode answers `{ schema, instructions }`.
 */
export function resultShape(spec: EndpointSpec): z.ZodRawShape {
  const fields = Object.entries(resultFields(spec)).map(([field, type]) => [
    field,
    VALUES[type]().optional(),
  ]);
  const paging = pagingShape(spec);
  return { ...Object.fromEntries(fields), ...(spec.mode ? z.object(paging).partial().shape : paging) };
}

const VALUES: Readonly<Record<ValueType, () => z.ZodType>> = {
  array: () => z.array(z.unknown()),
  object: () => z.record(z.string(), z.unknown()),
  string: () => z.string(),
  number: () => z.number(),
  boolean: () => z.boolean(),
};

function pagingShape({ paging }: EndpointSpec): z.ZodRawShape {
  if (!paging) return {};
  if (!("token" in paging)) return offsetPageShape;
  const parameter = z.string().optional().describe("The parameter to pass next_page_token back as");
  return { ...tokenPageShape, next_page_parameter: parameter };
}

function withPaging(
  spec: EndpointSpec,
  input: Readonly<Record<string, unknown>>,
  result: Record<string, unknown>,
): Record<string, unknown> {
  const paging = spec.paging;
  if (!paging) return result;
  if ("token" in paging) {
    const { next, ...rest } = result;
    const token = typeof next === "string" || typeof next === "number" ? String(next) : undefined;
    const page = tokenPage(token);
    return page.more ? { ...rest, ...page, next_page_parameter: paging.token } : { ...rest, ...page };
  }
  const limit = Number(input[paging.limit]);
  const offset = Number(input[paging.offset]);
  const page = withinLimit(result, limit);
  const count = largestArrayLength(page);
  return { ...page, ...offsetPage({ limit, offset, count, more: count >= limit }) };
}

/**
 * An offset page with its item list cut to `limit`: an upstream may send more than asked for, and
 * the next offset must follow the last item shown. (Token pages stay whole: their cursor points
 * past everything the upstream sent.)
 */
function withinLimit(result: Record<string, unknown>, limit: number): Record<string, unknown> {
  const [key, items] =
    Object.entries(result).find(([, value]) => Array.isArray(value) && value.length > limit) ?? [];
  return key === undefined ? result : { ...result, [key]: (items as unknown[]).slice(0, limit) };
}

function truncationHint(spec: EndpointSpec, _field: string, kept: number): string {
  const limit = spec.params.find((p) => p.upstream === "limit")?.name;
  if (!limit) return "Narrow the request to see the rest.";
  const gapless = spec.paging ? " so that paging skips nothing" : "";
  return `Call again with ${limit}=${Math.max(1, kept)}${gapless}.`;
}

function largestArrayLength(result: Record<string, unknown>): number {
  return Math.max(0, ...Object.values(result).map((value) => (Array.isArray(value) ? value.length : 0)));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
