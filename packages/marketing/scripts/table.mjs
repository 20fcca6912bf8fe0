// The endpoint table: one row per tool (see src/endpoint.ts for the row's shape), built from the
// endpoint map, the OpenAPI description, the spec's catalogue and overrides.json.

const PREFIX = "MarketingApi.";
const VERSION_ONLY = /^\*\*Version (\d) only\.\*\*/;
const PARAM_ORDER = { mode: 0, path: 1, query: 2, header: 2, body: 3 };
const RANGES = [
  ["start", "end"],
  ["start_ts", "end_ts"],
];

/**
 * The described operation a map entry calls.
 * @throws Error when the description lacks it or names it differently.
 */
export function operation(openapi, entry) {
  const op = openapi.paths[entry.path]?.[entry.method.toLowerCase()];
  if (!op || op.operationId !== entry.operationId) throw new Error(`${entry.tool}: no ${entry.operationId}`);
  return op;
}

/** The first 2xx answer of an operation as `[status, response]`. */
export function successResponse(op) {
  return Object.entries(op.responses).find(([code]) => code.startsWith("2"));
}

/** The table rows, in the map's order, each with `short` (the name without its prefix). */
export function buildRows(inputs) {
  return inputs.map.map((entry) => buildRow(entry, inputs));
}

function buildRow(entry, inputs) {
  const { overrides } = inputs;
  const short = entry.tool.slice(PREFIX.length);
  const own = overrides.tools[short];
  if (!own?.description) throw new Error(`${short}: no description in overrides.json`);
  const op = operation(inputs.openapi, entry);
  const params = rowParams(entry, op, inputs);
  const row = {
    name: entry.tool,
    short,
    title: op.summary,
    method: entry.method,
    path: entry.path,
    operationId: entry.operationId,
    toolset: own.toolset ?? overrides.toolsetByTag[entry.tag],
    hints: hintsFor(short, entry.method, overrides.hintGroups),
    params,
    response: documentedResponse(op, short),
  };
  if (!row.toolset) throw new Error(`${short}: no toolset for tag ${entry.tag}`);
  if (entry.mode_tool) row.mode = true;
  const byUpstream = (name, type) => params.find((p) => p.upstream === name && (!type || p.type === type));
  Object.assign(
    row,
    paging(byUpstream),
    periods(byUpstream, own, overrides),
    range(byUpstream, op, overrides),
  );
  row.description = describeTool(row, own, overrides);
  return row;
}

/** The tool's parameters in table order: mode, path, query and header, body. */
function rowParams(entry, op, inputs) {
  const short = entry.tool.slice(PREFIX.length);
  const spec = inputs.catalog[entry.tool];
  if (!spec) throw new Error(`${short}: not in catalog.json`);
  const params = entry.mode_tool
    ? [{ name: "mode", in: "mode", type: "string", required: true, values: "modes" }]
    : [];
  for (const p of entry.params) {
    const upstream = (op.parameters ?? []).find((u) => u.in === p.in && u.name === p.name);
    if (p.in !== "body" && !upstream)
      throw new Error(`${short}.${p.tool_param}: no upstream ${p.in} ${p.name}`);
    const own = spec.params[p.tool_param];
    if (!own) throw new Error(`${short}.${p.tool_param}: not in catalog`);
    params.push(paramRow(short, p, upstream, own, inputs.overrides));
  }
  params.sort((a, b) => PARAM_ORDER[a.in] - PARAM_ORDER[b.in]);
  const missing = Object.keys(spec.params).filter((name) => !params.some((p) => p.name === name));
  if (missing.length) throw new Error(`${short}: catalog params not mapped: ${missing}`);
  linkParams(params);
  return params;
}

/** Points version-only parameters at the version parameter, and a person id at its id-type parameter. */
function linkParams(params) {
  const version = params.find((p) => p.upstream === "version");
  for (const p of params) if (p.when) p.when.param = version.name;
  const idType = params.find((p) => p.upstream === "id_type");
  const person = params.find((p) => p.upstream === "customer_id");
  if (idType && person && idType.values === "idTypes") person.idOf = idType.name;
}

function paramRow(tool, entry, upstream, spec, overrides) {
  const schema = upstream?.schema ?? {};
  const type = spec.type;
  const own = { ...(overrides.tools[tool].params?.[entry.tool_param] ?? {}) };
  const row = { name: entry.tool_param, in: entry.in };
  if (entry.name) row.upstream = entry.name;
  row.type = type;
  if (spec.required) row.required = true;
  if (spec.required_when_mode_execute) row.execRequired = true;
  if (entry.default !== undefined) row.default = entry.default;
  if (type === "integer") Object.assign(row, integerBounds(entry, schema, own));
  if (type === "string") Object.assign(row, stringValues(entry, schema, overrides));
  const describe = own.describe ?? overrides.paramDescriptions[entry.tool_param];
  if (describe) row.describe = describe;
  const version = VERSION_ONLY.exec(upstream?.description ?? "")?.[1];
  if (version) row.when = { param: "", value: version };
  if (type !== (schema.type === "number" ? "integer" : schema.type) && entry.in !== "body") {
    throw new Error(`${tool}.${entry.tool_param}: catalog says ${type}, upstream ${schema.type}`);
  }
  return row;
}

function integerBounds(entry, schema, own) {
  const timestamp = /unix timestamp/i.test(schema.format ?? "");
  const bounds = timestamp ? { timestamp } : {};
  bounds.min = own.min ?? (timestamp || entry.name === "offset" ? 0 : 1);
  const max = own.max ?? schema.maximum;
  if (max !== undefined) bounds.max = max;
  return bounds;
}

function stringValues(entry, schema, overrides) {
  const values = {};
  const set = entry.name ? valueSetFor(entry.name, schema.enum, overrides) : undefined;
  if (set) values.values = set;
  // An upstream list with placeholders (`_o:<object_type_id>:create`) cannot be a JSON Schema
  // enum; the handler checks it as a pattern instead.
  else if (schema.enum?.some((value) => /<\w+>/.test(value))) values.pattern = enumPattern(schema.enum);
  if (entry.in === "path" && entry.name === "language") values.allowEmpty = true;
  return values;
}

/** The value set whose values equal an upstream enumeration, with platform id names made neutral. */
function valueSetFor(upstreamName, values, overrides) {
  const named = overrides.valueSetByUpstreamName[upstreamName];
  if (named) return named;
  if (!values) return undefined;
  const neutral = values.map((v) => v.replace(/^cio_/, "svc_")).join("|");
  const sets = overrides.valueSets;
  return Object.keys(sets).find((name) => sets[name].join("|") === neutral);
}

/** A regular expression source matching exactly the values of `values`, `<placeholder>`s as digits. */
function enumPattern(values) {
  const literal = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const alternatives = values.map((value) => literal(value).replace(/<\w+>/g, "\\d+"));
  return `^(?:${alternatives.join("|")})$`;
}

function hintsFor(short, method, groups) {
  if (method === "GET" || groups.readOnlyQueries.includes(short)) {
    return { readOnly: true, destructive: false, idempotent: true };
  }
  if (groups.idempotentWrites.includes(short))
    return { readOnly: false, destructive: false, idempotent: true };
  if (method === "PUT" || method === "DELETE")
    return { readOnly: false, destructive: true, idempotent: true };
  return { readOnly: false, destructive: false, idempotent: false };
}

/**
 * What the upstream documents for a successful answer: `"empty"` when it has no JSON body, the
 * type of an array or a primitive (see `valueType`), or the top-level fields of its JSON object
 * (every oneOf, anyOf and allOf branch) and each one's type.
 * @throws Error when a field's branches disagree on its type, or one documents none.
 */
function documentedResponse(op, short) {
  const schema = successResponse(op)[1].content?.["application/json"]?.schema;
  if (!schema) return "empty";
  const fields = objectFields(schema);
  if (!fields) return valueType(schema, short);
  const types = {};
  for (const [name, field] of fields) {
    const type = valueType(field, `${short}.${name}`);
    if ((types[name] ?? type) !== type) throw new Error(`${short}.${name}: ${types[name]} or ${type}`);
    types[name] = type;
  }
  return types;
}

/** An object schema's properties as `[name, schema]` pairs, over all its branches; undefined for a non-object. */
function objectFields(schema) {
  const branches = [...(schema.oneOf ?? []), ...(schema.anyOf ?? []), ...(schema.allOf ?? [])];
  if (schema.type !== "object" && !schema.properties && !branches.length) return undefined;
  return [...Object.entries(schema.properties ?? {}), ...branches.flatMap((b) => objectFields(b) ?? [])];
}

/**
 * The JSON type of the values a schema documents: array, object, string, number (an integer too,
 * so a value stays valid whatever its representation) or boolean; the branches' one type for a union.
 * @throws Error when it documents none, or its branches disagree.
 */
function valueType(schema, where) {
  const branches = [...(schema.oneOf ?? []), ...(schema.anyOf ?? []), ...(schema.allOf ?? [])];
  const types = new Set(branches.map((branch) => valueType(branch, where)));
  if (schema.type) types.add(schema.type === "integer" ? "number" : schema.type);
  else if (schema.properties) types.add("object");
  else if (schema.items) types.add("array");
  if (types.size !== 1) throw new Error(`${where}: documented as ${[...types].join(" or ") || "no type"}`);
  return [...types][0];
}

function paging(byUpstream) {
  const offset = byUpstream("offset");
  if (offset) return { paging: { offset: offset.name, limit: byUpstream("limit").name } };
  const token = byUpstream("start", "string");
  return token ? { paging: { token: token.name } } : {};
}

/** A period report: the count's maximum depends on the unit, months per endpoint. */
function periods(byUpstream, own, overrides) {
  const unit = byUpstream("period");
  const count = byUpstream("steps");
  if (!unit || !count) return {};
  const monthsMax = own.monthsMax ?? overrides.periodMaximums.months;
  count.max = monthsMax;
  return { periods: { unit: unit.name, count: count.name, monthsMax } };
}

/** A time range; capped when the upstream documents a 10-year limit on its end. */
function range(byUpstream, op, overrides) {
  for (const [start, end] of RANGES) {
    const from = byUpstream(start, "integer");
    const to = byUpstream(end, "integer");
    if (!from || !to) continue;
    const described = (op.parameters ?? []).find((u) => u.name === end)?.description ?? "";
    const cap = /10 years/.test(described) ? { maxSeconds: overrides.tenYearsSeconds } : {};
    return { range: { start: from.name, end: to.name, ...cap } };
  }
  return {};
}

/** The hand-written description, then the sentences every tool of its kind shares. */
function describeTool(row, own, overrides) {
  const parts = [own.description];
  const token = row.paging?.token;
  if (token) parts.push(`To page, pass next_page_token from the result as ${token}.`);
  if (row.paging?.offset) parts.push(`To page, pass next_offset from the result as ${row.paging.offset}.`);
  if (row.params.some((p) => p.timestamp)) parts.push("Timestamps are Unix seconds.");
  if (row.periods) parts.push(periodSentence(row, overrides));
  if (row.mode) {
    const needed = row.params.filter((p) => p.execRequired).map((p) => p.name);
    const also = needed.length ? ` with ${needed.join(", ")}` : "";
    parts.push(
      `mode get_request_schema returns the body's JSON Schema; mode execute sends request_body (a JSON string)${also}.`,
    );
  }
  return parts.join(" ");
}

function periodSentence(row, overrides) {
  const max = { ...overrides.periodMaximums, months: row.periods.monthsMax };
  const count = row.params.find((p) => p.name === row.periods.count);
  const least = count.min > 1 ? `at least ${count.min}, ` : "";
  return `${row.periods.count}: ${least}at most ${max.hours} hours, ${max.days} days, ${max.weeks} weeks or ${max.months} months (default: all available, or 12 for months).`;
}
