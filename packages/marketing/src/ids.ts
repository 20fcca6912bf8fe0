import { ToolError } from "@toolkits/core";
import type { EndpointSpec } from "./endpoint.js";

/**
 * Neutral id kinds and the platform's names for them: the only names ever rewritten. Other `cio_*`
 * names (`cio_subscription_preferences`, `cio_relationships`, …) are reserved attribute names and
 * pass untouched, as does user data that merely contains "cio_".
 */
export const ID_NAMES: Readonly<Record<string, string>> = Object.freeze({
  svc_id: "cio_id",
  svc_object_id: "cio_object_id",
});

// Lookups go through maps: keys are data, and a plain object would answer `constructor` or
// `toString` with Object.prototype's members.
const TO_UPSTREAM: ReadonlyMap<string, string> = new Map(Object.entries(ID_NAMES));
const TO_NEUTRAL: ReadonlyMap<string, string> = new Map(
  Object.entries(ID_NAMES).map(([neutral, upstream]) => [upstream, neutral]),
);

const PERSON_PREFIX = { neutral: "svc_", upstream: "cio_" } as const;
const NAME_IN_TEXT = new RegExp(`\\b(${[...TO_NEUTRAL.keys()].join("|")})\\b`, "g");

/** An id-type value as the upstream spells it: `svc_id` → `cio_id`, `svc_object_id` → `cio_object_id`. */
export function upstreamIdType(value: string): string {
  return TO_UPSTREAM.get(value) ?? value;
}

/**
 * A person identifier of kind `svc_id` as the upstream wants it: prefixed `cio_`. Accepts the
 * `svc_`-prefixed form, the bare id (as results show it under `svc_id`) and an already `cio_` one.
 */
export function upstreamPersonId(value: string): string {
  if (value.startsWith(PERSON_PREFIX.neutral)) {
    return PERSON_PREFIX.upstream + value.slice(PERSON_PREFIX.neutral.length);
  }
  return value.startsWith(PERSON_PREFIX.upstream) ? value : PERSON_PREFIX.upstream + value;
}

/**
 * What to do when a rename would give a key a name its object already has (a body holding both
 * `svc_id` and `cio_id`, an answer holding both `cio_id` and a custom `svc_id`): refuse the request,
 * or leave that answer's keys as the upstream named them. Either way no value is dropped.
 */
type OnClash = "refuse" | "keep";

/**
 * Renames object keys found in `names`, at any depth; values are left alone. Returns a copy whose
 * keys are all own properties (even `__proto__`).
 * @param pointer the JSON pointer of `value`, for a refusal's message (not tracked with `keep`).
 * @throws ToolError `invalid_input` on a clash when `onClash` is `refuse`.
 */
function renameKeys(
  value: unknown,
  names: ReadonlyMap<string, string>,
  onClash: OnClash,
  pointer = "",
): unknown {
  // Only a refusal names where it happened: answers (`keep`, up to megabytes) build no pointers.
  const at = (step: string | number) =>
    onClash === "refuse" ? `${pointer}/${String(step).replaceAll("~", "~0").replaceAll("/", "~1")}` : pointer;
  if (Array.isArray(value)) return value.map((item, i) => renameKeys(item, names, onClash, at(i)));
  if (!isPlainObject(value)) return value;
  const entries = Object.entries(value);
  const keys = new Set(entries.map(([key]) => key));
  return Object.fromEntries(
    entries.map(([key, field]) => [
      renamedKey(key, names, keys, onClash, pointer),
      renameKeys(field, names, onClash, at(key)),
    ]),
  );
}

function renamedKey(
  key: string,
  names: ReadonlyMap<string, string>,
  siblings: ReadonlySet<string>,
  onClash: OnClash,
  pointer: string,
): string {
  const name = names.get(key);
  if (name === undefined || !siblings.has(name)) return name ?? key;
  if (onClash === "keep") return key;
  throw new ToolError(
    "invalid_input",
    `request_body holds both ${key} and ${name} at ${pointer || "/"}: they name the same upstream field (${name}), so one would be lost. Keep one; nothing was sent.`,
  );
}

/**
 * A request body with neutral id keys (`svc_id`, `svc_object_id`) in the upstream's names.
 * @throws ToolError `invalid_input` for an object holding both names of one id.
 */
export const bodyToUpstream = (body: unknown): unknown => renameKeys(body, TO_UPSTREAM, "refuse");

/** An upstream answer with its id keys (`cio_id`, `cio_object_id`) in neutral names. */
export const resultToNeutral = (data: unknown): unknown => renameKeys(data, TO_NEUTRAL, "keep");

/**
 * A request-body JSON Schema in neutral names: property keys, `required` entries, titles and the
 * id names inside descriptions. Schemas are our own data, so every string may be rewritten.
 */
export function schemaToNeutral(schema: unknown): unknown {
  if (typeof schema === "string") return schema.replace(NAME_IN_TEXT, (name) => TO_NEUTRAL.get(name) ?? name);
  if (Array.isArray(schema)) return schema.map(schemaToNeutral);
  if (!isPlainObject(schema)) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, field]) => [TO_NEUTRAL.get(key) ?? key, schemaToNeutral(field)]),
  );
}

/** The parts of one upstream request, keyed by upstream parameter names. */
export interface UpstreamCall {
  /** The path template with any allowed empty segments already filled in. */
  path: string;
  pathParams: Record<string, string | number>;
  query: Record<string, string | number | boolean>;
  headers: Record<string, string>;
  body?: unknown;
}

/**
 * Translates a call built from neutral tool input into the upstream's id names, driven by the
 * endpoint's table row: id-type values, person identifiers of kind `svc_id`, and body keys.
 */
export function callToUpstream(spec: EndpointSpec, call: UpstreamCall): UpstreamCall {
  const out: UpstreamCall = {
    ...call,
    pathParams: { ...call.pathParams },
    query: { ...call.query },
    headers: { ...call.headers },
  };
  for (const param of spec.params) {
    const target = slotOf(out, param.in);
    const key = param.upstream;
    if (!target || !key || typeof target[key] !== "string") continue;
    const value = target[key] as string;
    if (param.values === "idTypes" || param.values === "objectIdTypes") target[key] = upstreamIdType(value);
    // The kind is read from the neutral call: its own translation may already have run.
    const kind = param.idOf ? spec.params.find((p) => p.name === param.idOf) : undefined;
    const kindValue = kind?.upstream ? slotOf(call, kind.in)?.[kind.upstream] : undefined;
    if (kindValue === "svc_id") target[key] = upstreamPersonId(value);
  }
  if (call.body !== undefined) out.body = bodyToUpstream(call.body);
  return out;
}

function slotOf(call: UpstreamCall, where: string): Record<string, unknown> | undefined {
  return where === "path" ? call.pathParams : where === "query" ? call.query : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
