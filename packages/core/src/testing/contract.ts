import { readFileSync } from "node:fs";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";

/** One upstream request as a test saw it leave. */
export interface RecordedRequest {
  method: string;
  url: string;
  /** Header values by lower-case name. */
  headers: Readonly<Record<string, string>>;
  /** The body text; "" when there was none. */
  body: string;
}

/** A JSON Schema inside an OpenAPI description (a `$ref` into its components included). */
export interface OpenApiSchema {
  $ref?: string;
  type?: string;
  items?: OpenApiSchema;
  [keyword: string]: unknown;
}

/** An operation's parameter, or a `$ref` to one in `components.parameters`. */
export interface OpenApiParameter {
  $ref?: string;
  name?: string;
  in?: "query" | "header" | "path" | "cookie";
  required?: boolean;
  schema?: OpenApiSchema;
}

/** An OpenAPI operation (one method of a path): its parameters, JSON body and servers. */
export interface OpenApiOperation {
  operationId?: string;
  parameters?: readonly OpenApiParameter[];
  requestBody?: { required?: boolean; content?: Readonly<Record<string, { schema?: OpenApiSchema }>> };
  servers?: readonly { url: string }[];
}

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"] as const;
type Method = (typeof METHODS)[number];

/** An OpenAPI path item: its operations by lower-case method, and servers and parameters they share. */
export type OpenApiPathItem = Partial<Record<Method, OpenApiOperation>> & {
  servers?: readonly { url: string }[];
  parameters?: readonly OpenApiParameter[];
};

/** The parts of an OpenAPI 3 description the contract reads; everything else is ignored. */
export interface OpenApiDescription {
  info?: { title?: string };
  servers?: readonly { url: string }[];
  paths: Readonly<Record<string, OpenApiPathItem>>;
  components?: Readonly<Record<string, unknown>>;
}

/** An upstream's quirks: what its description leaves out or states loosely. */
export interface ContractOptions {
  /** Origins the API also answers at (another region, a configured proxy): `https://api.eu.pagerduty.com`. */
  hosts?: readonly string[];
  /** Headers every request must carry, by lower-case name, each matching its pattern. */
  headers?: Readonly<Record<string, RegExp>>;
  /** Formats in this API's own sense: a pattern or test the value must pass, or `true` to accept any value. */
  formats?: Readonly<Record<string, RegExp | ((value: string) => boolean) | true>>;
  /** Read `oneOf` in request-body schemas as `anyOf`, for descriptions whose branches overlap. */
  oneOfAsAnyOf?: boolean;
  /**
   * Read `<name>` in enum values as a placeholder for any text without a colon, for descriptions
   * that list value templates (Customer.io's activity type `_o:<object_type_id>:create`).
   */
  enumPlaceholders?: boolean;
}

/** One operation of the description: its `operationId` (or `METHOD path`), method and path template. */
export interface ContractOperation {
  id: string;
  method: string;
  path: string;
}

/** What an API description allows, as a checker of recorded requests. */
export interface RequestContract {
  /** The description's title, for messages. */
  readonly title: string;
  /** Every operation the description holds, in its order. */
  readonly operations: readonly ContractOperation[];
  /** The operation `request` calls, or undefined when it calls none. */
  operationOf(request: RecordedRequest): ContractOperation | undefined;
  /**
   * Everything wrong with `request`, one sentence each, starting with the operation
   * (`GET /incidents: …`): no such operation, a host that is not a server, an undeclared or repeated
   * query parameter, a value of the wrong type or format, outside an enum or out of bounds, a
   * missing required parameter or header, a body the operation does not take or that does not
   * match its schema. Header values are never quoted. Empty when the request conforms.
   */
  problems(request: RecordedRequest): string[];
}

interface Route {
  operation: ContractOperation;
  definition: OpenApiOperation;
  parameters: OpenApiParameter[];
  /** Where the path template starts: each server URL, and the same path under every extra host. */
  bases: URL[];
  pattern: RegExp;
  names: string[];
  /** Characters of the template outside its placeholders. */
  literal: number;
}

interface Match {
  route: Route;
  /** Path parameter values, still percent-encoded. */
  values: Record<string, string>;
  knownHost: boolean;
}

/**
 * A checker for requests against an OpenAPI 3 description (a parsed object, or the URL of a JSON
 * file), with the upstream's quirks as `options`.
 * @throws Error when the file cannot be read or parsed, or a `$ref` points nowhere.
 */
export function requestContract(
  source: OpenApiDescription | URL,
  options: ContractOptions = {},
): RequestContract {
  const description: OpenApiDescription =
    source instanceof URL ? JSON.parse(readFileSync(source, "utf8")) : source;
  const title = description.info?.title ?? "the API description";
  const routes = routesOf(description, options.hosts ?? []);
  // Most literal characters first, so `/users/me` wins over `/users/{id}`.
  const specificFirst = [...routes].sort((a, b) => b.literal - a.literal);
  const validate = validators(description, options);

  const find = (request: RecordedRequest): Match | undefined => {
    const url = new URL(request.url);
    const method = request.method.toUpperCase();
    const candidates = specificFirst.filter((route) => route.operation.method === method);
    return matchRoute(candidates, url, true) ?? matchRoute(candidates, url, false);
  };

  return {
    title,
    operations: routes.map((route) => route.operation),
    operationOf: (request) => find(request)?.route.operation,
    problems(request) {
      const match = find(request);
      if (!match) {
        const url = new URL(request.url);
        return [`${request.method} ${url.origin}${url.pathname} is not an operation of ${title}`];
      }
      const { route } = match;
      const where = `${route.operation.method} ${route.operation.path}`;
      const url = new URL(request.url);
      const found = [
        ...(match.knownHost ? [] : [`${url.origin} is not a server of ${title}`]),
        ...pathProblems(match, validate),
        ...queryProblems(route, url.searchParams, validate),
        ...headerProblems(route, request.headers, options.headers ?? {}, validate),
        ...bodyProblems(route.definition, request, validate),
      ];
      return found.map((problem) => `${where}: ${problem}`);
    },
  };
}

function routesOf(description: OpenApiDescription, hosts: readonly string[]): Route[] {
  const resolve = resolver(description);
  const routes: Route[] = [];
  for (const [path, item] of Object.entries(description.paths)) {
    for (const method of METHODS) {
      const definition = item[method];
      if (!definition) continue;
      const servers = definition.servers ?? item.servers ?? description.servers ?? [];
      const bases = servers.flatMap(({ url }) => [
        new URL(url),
        ...hosts.map((host) => new URL(new URL(url).pathname, host)),
      ]);
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((found) => found[1] as string);
      const id = definition.operationId ?? `${method.toUpperCase()} ${path}`;
      routes.push({
        operation: { id, method: method.toUpperCase(), path },
        definition,
        parameters: mergeParameters(item.parameters ?? [], definition.parameters ?? [], resolve),
        bases,
        pattern: templatePattern(path),
        names,
        literal: path.replace(/\{[^}]+\}/g, "").length,
      });
    }
  }
  return routes;
}

/** Operation parameters override the path item's of the same name and location. */
function mergeParameters(
  shared: readonly OpenApiParameter[],
  own: readonly OpenApiParameter[],
  resolve: <T>(value: T & { $ref?: string }) => T,
): OpenApiParameter[] {
  const byKey = new Map<string, OpenApiParameter>();
  for (const parameter of [...shared, ...own].map((p) => resolve(p))) {
    byKey.set(`${parameter.in} ${parameter.name}`, parameter);
  }
  return [...byKey.values()];
}

function resolver(description: OpenApiDescription) {
  return function resolve<T>(value: T & { $ref?: string }): T {
    if (!value.$ref) return value;
    const target = value.$ref
      .replace(/^#\//, "")
      .split("/")
      .map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"))
      .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], description);
    if (target === undefined) throw new Error(`${value.$ref} points nowhere in the description`);
    return resolve(target as T & { $ref?: string });
  };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** `{name}` matches one path segment, empty included, so an empty value is reported rather than missed. */
function templatePattern(path: string): RegExp {
  const parts = path
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith("{") ? "([^/]*)" : escapeRegExp(part)));
  return new RegExp(`^${parts.join("")}$`);
}

function matchRoute(routes: Route[], url: URL, sameHost: boolean): Match | undefined {
  for (const route of routes) {
    for (const base of route.bases) {
      if (sameHost && base.origin !== url.origin) continue;
      const prefix = base.pathname.replace(/\/$/, "");
      if (!url.pathname.startsWith(prefix)) continue;
      const found = route.pattern.exec(url.pathname.slice(prefix.length));
      if (!found) continue;
      const values = Object.fromEntries(route.names.map((name, i) => [name, found[i + 1] ?? ""]));
      return { route, values, knownHost: sameHost };
    }
  }
  return undefined;
}

type Validate = (schema: OpenApiSchema, value: unknown) => ErrorObject[];

/** Ajv validation of a schema from the description, its `$ref`s resolved against the description's components. */
function validators(description: OpenApiDescription, options: ContractOptions): Validate {
  const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
  (addFormats as unknown as (ajv: Ajv) => void)(ajv);
  for (const [name, format] of Object.entries(options.formats ?? {})) ajv.addFormat(name, format);
  const compiled = new WeakMap<OpenApiSchema, ValidateFunction>();
  return (schema, value) => {
    let validate = compiled.get(schema);
    if (!validate) {
      const readable = options.oneOfAsAnyOf
        ? JSON.parse(JSON.stringify(schema).replaceAll('"oneOf":', '"anyOf":'))
        : schema;
      validate = ajv.compile({ ...readable, components: description.components ?? {} });
      compiled.set(schema, validate);
    }
    if (validate(value)) return [];
    const errors = validate.errors ?? [];
    return options.enumPlaceholders ? errors.filter((error) => !fillsPlaceholder(error, value)) : errors;
  };
}

/** Whether an enum error's value is one of the enum's `<placeholder>` templates filled in. */
function fillsPlaceholder(error: ErrorObject, root: unknown): boolean {
  if (error.keyword !== "enum") return false;
  const value = error.instancePath
    .split("/")
    .slice(1)
    .map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"))
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], root);
  if (typeof value !== "string") return false;
  return (error.params as { allowedValues: unknown[] }).allowedValues.some(
    (allowed) =>
      typeof allowed === "string" &&
      allowed.includes("<") &&
      new RegExp(
        `^${allowed
          .split(/<[^>]+>/)
          .map(escapeRegExp)
          .join("[^:]+")}$`,
      ).test(value),
  );
}

/** What an Ajv error says, in this checker's words. */
function explain(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "enum":
      return `is not one of ${(params.allowedValues as unknown[]).join(", ")}`;
    case "format":
      return `is not ${/^[aeiou]/i.test(String(params.format)) ? "an" : "a"} ${params.format}`;
    case "maximum":
      return `is above the maximum ${params.limit}`;
    case "minimum":
      return `is below the minimum ${params.limit}`;
    case "additionalProperties":
      return `has ${params.additionalProperty}, which its schema does not declare`;
    default:
      return error.message ?? error.keyword;
  }
}

/** A parameter's schema, and whether it takes several values (an array, or PagerDuty's `name[]`). */
function valueSchema(parameter: OpenApiParameter): { schema: OpenApiSchema; many: boolean } {
  const schema = parameter.schema ?? {};
  if (schema.type === "array") return { schema: schema.items ?? {}, many: true };
  return { schema, many: parameter.name?.endsWith("[]") ?? false };
}

/** Reads a text value as its schema's type; a sentence instead when it is not one. */
function typed(text: string, type: string | undefined): { value: unknown } | { problem: string } {
  switch (type) {
    case "integer":
      return /^-?\d+$/.test(text) ? { value: Number(text) } : { problem: "is not an integer" };
    case "number":
      return text.trim() && Number.isFinite(Number(text))
        ? { value: Number(text) }
        : { problem: "is not a number" };
    case "boolean":
      return text === "true" || text === "false"
        ? { value: text === "true" }
        : { problem: "is not a boolean" };
    default:
      return { value: text };
  }
}

function valueProblems(label: string, text: string, schema: OpenApiSchema, validate: Validate): string[] {
  const read = typed(text, schema.type);
  if ("problem" in read) return [`${label} ${read.problem}`];
  return validate(schema, read.value).map((error) => `${label} ${explain(error)}`);
}

function pathProblems({ route, values }: Match, validate: Validate): string[] {
  return route.parameters
    .filter((parameter) => parameter.in === "path")
    .flatMap((parameter) => {
      const raw = values[parameter.name ?? ""] ?? "";
      let text: string;
      try {
        text = decodeURIComponent(raw);
      } catch {
        return [`{${parameter.name}}=${raw} is not percent-encoded`];
      }
      return valueProblems(`{${parameter.name}}=${text}`, text, parameter.schema ?? {}, validate);
    });
}

function queryProblems(route: Route, query: URLSearchParams, validate: Validate): string[] {
  const declared = route.parameters.filter((parameter) => parameter.in === "query");
  const problems: string[] = [];
  for (const name of new Set(query.keys())) {
    const parameter = declared.find((candidate) => candidate.name === name);
    if (!parameter) {
      problems.push(`query parameter ${name} is not declared`);
      continue;
    }
    const { schema, many } = valueSchema(parameter);
    const values = query.getAll(name);
    if (values.length > 1 && !many) problems.push(`${name} is repeated but takes one value`);
    for (const value of values) problems.push(...valueProblems(`${name}=${value}`, value, schema, validate));
  }
  for (const parameter of declared) {
    if (parameter.required && !query.has(parameter.name ?? "")) {
      problems.push(`required query parameter ${parameter.name} is missing`);
    }
  }
  return problems;
}

function headerProblems(
  route: Route,
  headers: Readonly<Record<string, string>>,
  required: Readonly<Record<string, RegExp>>,
  validate: Validate,
): string[] {
  const problems: string[] = [];
  for (const parameter of route.parameters.filter((candidate) => candidate.in === "header")) {
    const value = headers[(parameter.name ?? "").toLowerCase()];
    if (value === undefined) {
      if (parameter.required) problems.push(`required header ${parameter.name} is missing`);
      continue;
    }
    // Header values may be credentials: the problem names the header only.
    const wrong = valueProblems("", value, parameter.schema ?? {}, validate);
    if (wrong.length) problems.push(`header ${parameter.name} has a value its schema does not allow`);
  }
  for (const [name, pattern] of Object.entries(required)) {
    if (!pattern.test(headers[name] ?? "")) problems.push(`header ${name} does not match ${pattern}`);
  }
  return problems;
}

function bodyProblems(operation: OpenApiOperation, request: RecordedRequest, validate: Validate): string[] {
  const schema = operation.requestBody?.content?.["application/json"]?.schema;
  if (!schema) return request.body ? ["takes no body"] : [];
  if (!request.body) return operation.requestBody?.required ? ["body is missing"] : [];
  if (!(request.headers["content-type"] ?? "").startsWith("application/json")) {
    return ["body is not sent as application/json"];
  }
  let body: unknown;
  try {
    body = JSON.parse(request.body);
  } catch {
    return ["body is not JSON"];
  }
  return validate(schema, body).map((error) => `body ${error.instancePath || "/"} ${explain(error)}`);
}
