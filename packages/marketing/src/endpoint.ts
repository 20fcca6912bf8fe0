import type { ToolHints } from "@toolkits/core";
import type { VALUE_SETS } from "./endpoints.generated.js";

/** The name of one shared value set (item types, time units, id types, …). */
export type ValueSetName = keyof typeof VALUE_SETS;

/** The JSON type of a documented value; an upstream `integer` is a `number`. */
export type ValueType = "array" | "object" | "string" | "number" | "boolean";

/** One tool parameter and where it goes upstream. */
export interface ParamSpec {
  /** The tool parameter's name, as the spec writes it. */
  name: string;
  /** `mode` is the two-mode selector and never sent; `body` is `request_body`. */
  in: "path" | "query" | "header" | "body" | "mode";
  /** The upstream parameter name (absent for `mode` and `body`). */
  upstream?: string;
  type: "integer" | "string" | "boolean";
  /** Required in the input schema (`*` in the spec). */
  required?: boolean;
  /** Required in execute mode only (`^`); checked by the handler. */
  execRequired?: boolean;
  /** The upstream default, applied when the parameter is omitted. */
  default?: string | number | boolean;
  min?: number;
  max?: number;
  /** Allowed values, by shared set. */
  values?: ValueSetName;
  /** Allowed values as a regular expression source, for lists with placeholders (activity types). */
  pattern?: string;
  describe?: string;
  /** An integer Unix timestamp in seconds. */
  timestamp?: boolean;
  /** A path value that may be empty (the language tag: empty selects the default language). */
  allowEmpty?: boolean;
  /** Applies only when another parameter has this value (metrics v1/v2); its default too. */
  when?: { param: string; value: string };
  /** A person identifier whose kind (`id`, `email`, `svc_id`) the named parameter gives. */
  idOf?: string;
}

/** One tool: an upstream endpoint and how its parameters map onto the request. */
export interface EndpointSpec {
  /** `MarketingApi.<Verb><Noun>`. */
  name: string;
  title: string;
  description: string;
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** Upstream path template with `{name}` placeholders (upstream names). */
  path: string;
  operationId: string;
  toolset: string;
  hints: Omit<ToolHints, "openWorld">;
  /** A two-mode tool: `mode` selects get_request_schema or execute. */
  mode?: boolean;
  params: ParamSpec[];
  /**
   * What the upstream documents for a successful answer: the top-level fields of its JSON object
   * (every oneOf branch) with each one's type, the type of an array or a primitive, or `"empty"`
   * for no body. The output schema declares the result's fields from it (see `resultFields`);
   * absent, it declares none.
   */
  response?: Readonly<Record<string, ValueType>> | Exclude<ValueType, "object"> | "empty";
  /** Cursor paging (`token`: the parameter taking `next`) or offset paging. */
  paging?: { token: string } | { offset: string; limit: string };
  /** A period report: the count's maximum depends on the unit; months up to `monthsMax`. */
  periods?: { unit: string; count: string; monthsMax: number };
  /** A time range: `end` not before `start`, and at most `maxSeconds` after it. */
  range?: { start: string; end: string; maxSeconds?: number };
}
