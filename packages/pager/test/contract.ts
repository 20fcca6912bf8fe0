import { readFileSync } from "node:fs";
import { isIsoTime } from "../src/params.js";

/** An upstream request as the tests saw it leave. */
export interface SentRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
}

interface Schema {
  type?: string;
  enum?: unknown[];
  format?: string;
  items?: Schema & { $ref?: string };
  $ref?: string;
}

interface Parameter {
  name: string;
  in: "query" | "header" | "path";
  required?: boolean;
  schema?: Schema;
  $ref?: string;
}

interface OpenApi {
  paths: Record<string, Record<string, { parameters?: Parameter[] }>>;
  components: Record<string, Record<string, unknown>>;
}

// The vendored, trimmed copy of PagerDuty's description (see vendor/README.md).
const spec: OpenApi = JSON.parse(
  readFileSync(new URL("../vendor/pagerduty-openapi.json", import.meta.url), "utf8"),
);

function resolve<T extends { $ref?: string }>(value: T): T {
  if (!value.$ref) return value;
  const [, , section, name] = value.$ref.split("/");
  return resolve(spec.components[section as string]?.[name as string] as T);
}

const templates = Object.keys(spec.paths).map((template) => ({
  template,
  pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`),
}));

/**
 * Everything wrong with `request` according to PagerDuty's OpenAPI description: an operation that
 * does not exist, a query parameter it does not declare (`[]` included), a value outside an enum or
 * of the wrong type, a required header missing or with a value it does not allow. Empty when it conforms.
 */
export function contractViolations(request: SentRequest): string[] {
  const url = new URL(request.url);
  const path = decodeURIComponent(url.pathname);
  const found = templates.find(({ pattern }) => pattern.test(url.pathname));
  const operation = found && spec.paths[found.template]?.[request.method.toLowerCase()];
  if (!operation) return [`${request.method} ${path} is not an operation of PagerDuty's API`];
  const parameters = (operation.parameters ?? []).map(resolve);
  const problems: string[] = [];
  const where = `${request.method} ${found.template}`;
  for (const name of new Set(url.searchParams.keys())) {
    const declared = parameters.find((p) => p.in === "query" && p.name === name);
    if (!declared) {
      problems.push(`${where} declares no query parameter ${name}`);
      continue;
    }
    for (const value of url.searchParams.getAll(name))
      problems.push(...valueProblems(where, name, value, declared));
  }
  for (const parameter of parameters) {
    const value = parameter.in === "header" ? request.headers[parameter.name.toLowerCase()] : undefined;
    if (parameter.in === "header" && parameter.required && value === undefined) {
      problems.push(`${where} requires the ${parameter.name} header`);
    } else if (value !== undefined) problems.push(...valueProblems(where, parameter.name, value, parameter));
    if (parameter.in === "query" && parameter.required && !url.searchParams.has(parameter.name)) {
      problems.push(`${where} requires the query parameter ${parameter.name}`);
    }
  }
  return problems;
}

function valueProblems(where: string, name: string, value: string, parameter: Parameter): string[] {
  const outer = resolve(parameter.schema ?? {});
  const schema = outer.type === "array" && outer.items ? resolve(outer.items) : outer;
  const problem = (what: string) => [`${where}: ${name}=${value} ${what}`];
  if (schema.enum && !schema.enum.includes(value)) return problem(`is not one of ${schema.enum.join(", ")}`);
  if (schema.type === "integer" && !/^-?\d+$/.test(value)) return problem("is not an integer");
  if (schema.type === "boolean" && value !== "true" && value !== "false") return problem("is not a boolean");
  if (schema.format === "date-time" && !isIsoTime(value)) return problem("is not a date-time");
  return [];
}
