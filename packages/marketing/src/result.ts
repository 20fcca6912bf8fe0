import { capResult, offsetPage, offsetPageShape, tokenPage, tokenPageShape } from "@toolkits/core";
import { z } from "zod";
import type { EndpointSpec } from "./endpoint.js";

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
 * The top-level fields of a tool's result besides the paging ones, as the upstream documents them
 * (`EndpointSpec.response`) and toResult shapes them: `ok` for an empty answer, `result` for an
 * array or a primitive, and the object's own properties without `next`, which paging replaces.
 */
export function resultFields(spec: EndpointSpec): string[] {
  const { response, paging } = spec;
  if (response === "empty") return ["ok"];
  if (response === "value") return ["result"];
  const fields = response ?? [];
  return paging && "token" in paging ? fields.filter((field) => field !== "next") : [...fields];
}

/**
 * The output schema's properties: each of resultFields optional and of any type (the upstream's
 * answers vary, and the client validates structuredContent against them), then the paging fields,
 * optional for a two-mode tool since its schema mode answers `{ schema, instructions }`.
 */
export function resultShape(spec: EndpointSpec): z.ZodRawShape {
  const fields = Object.fromEntries(resultFields(spec).map((field) => [field, z.unknown().optional()]));
  const paging = pagingShape(spec);
  return { ...fields, ...(spec.mode ? z.object(paging).partial().shape : paging) };
}

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
