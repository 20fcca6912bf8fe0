import { type EndpointSpec, type ParamSpec, VALUE_SETS } from "@toolkits/marketing";
import { EXAMPLES } from "@toolkits/marketing/sandbox";

// Valid arguments for every marketing tool, for the marketing package's tests and the server's
// fault tests alike: both call each of the 115 tools on the sandbox account.

const START = 1_700_000_000;
const DAY = 86_400;

/** Ids the sandbox account is seeded with, by upstream path parameter. */
const SEEDED: Readonly<Record<string, string | number>> = {
  collection_id: 1,
  segment_id: 7,
  snippet_name: "address",
  email_address: "bounced.person@example.com",
  suppression_type: "bounces",
  language: "fr",
  test_group_id: "A",
  message_id: "dgOq6wUBAAAAAAAA",
  object_id: "acme",
  customer_id: "svc_a3000001",
};

/** Preferred values of enumerated parameters, so every translation path is exercised. */
const PREFERRED: Readonly<Record<string, string>> = {
  idTypes: "svc_id",
  objectIdTypes: "svc_object_id",
  metricsVersions: "2",
  modes: "execute",
  timeUnits: "days",
};

const BY_UPSTREAM: Readonly<Record<string, string | number | boolean>> = {
  start: Buffer.from("o:0").toString("base64url"),
  type: "event",
  name: "purchase",
  tz: "America/New_York",
  language: "fr",
  "Accept-Language": "fr",
  email: "person@example.com",
  steps: 2,
  limit: 10,
  offset: 0,
};

/**
 * Valid arguments for every parameter of a tool (execute mode, metrics version 2 and only the
 * parameters that apply to it), with ids the sandbox knows.
 */
export function sampleArgs(spec: EndpointSpec): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const param of spec.params) {
    if (param.when && args[param.when.param] !== param.when.value) continue;
    args[param.name] = sampleValue(spec, param);
  }
  return args;
}

function sampleValue(spec: EndpointSpec, param: ParamSpec): unknown {
  if (param.in === "body") return JSON.stringify(EXAMPLES.requests[spec.name]);
  if (param.values) return PREFERRED[param.values] ?? VALUE_SETS[param.values][0];
  const upstream = param.upstream ?? "";
  if (param.in === "path" && SEEDED[upstream] !== undefined) return SEEDED[upstream];
  if (param.timestamp) return param.name === spec.range?.end ? START + DAY : START;
  if (BY_UPSTREAM[upstream] !== undefined && typeof BY_UPSTREAM[upstream] === jsType(param)) {
    return BY_UPSTREAM[upstream];
  }
  if (param.type === "integer") return Math.max(param.min ?? 1, 1);
  return param.type === "boolean" ? true : "example";
}

const jsType = (param: ParamSpec) => (param.type === "integer" ? "number" : param.type);
