import { readFileSync } from "node:fs";
import { Ajv, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import type { Seen } from "./harness.js";

interface Parameter {
  name: string;
  in: "path" | "query" | "header";
  required?: boolean;
  schema: { type?: string; enum?: unknown[]; maximum?: number; format?: string };
}

interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: { "application/json": { schema: Record<string, unknown> } } };
}

interface Description {
  servers: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
}

/** The vendored, trimmed OpenAPI description (see test/vendor/README.md). */
export const description: Description = JSON.parse(
  readFileSync(new URL("../vendor/customerio-app-openapi.trimmed.json", import.meta.url), "utf8"),
);

const HOSTS = ["https://api.customer.io", "https://api-eu.customer.io"];

const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
(addFormats as unknown as (ajv: Ajv) => void)(ajv);
for (const format of ["unix timestamp", "url", "base64"]) ajv.addFormat(format, true);
const validators = new Map<string, ValidateFunction>();

/** The described operation a request hits, with its path parameters (raw, still encoded). */
export function findOperation(
  method: string,
  url: URL,
): { path: string; operation: Operation; pathParams: Record<string, string> } | undefined {
  const rawPath = url.pathname;
  for (const [template, methods] of Object.entries(description.paths)) {
    const operation = methods[method.toLowerCase()];
    if (!operation) continue;
    const names: string[] = [];
    const pattern = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
      names.push(name);
      return "([^/]*)";
    });
    const match = new RegExp(`^${pattern}$`).exec(rawPath);
    if (!match) continue;
    const pathParams = Object.fromEntries(names.map((name, i) => [name, match[i + 1] ?? ""]));
    return { path: template, operation, pathParams };
  }
  return undefined;
}

/**
 * Everything wrong with one upstream request against the described operation: host, method and
 * path, path and query parameters (names, types, enumerations, maximums, requiredness), the
 * Authorization and Accept headers, and the JSON body against the request-body schema.
 */
export async function contractProblems(request: Seen): Promise<{ operationId?: string; problems: string[] }> {
  const problems: string[] = [];
  if (!HOSTS.includes(request.url.origin)) problems.push(`unknown host ${request.url.origin}`);
  const found = findOperation(request.method, request.url);
  if (!found)
    return { problems: [...problems, `no operation for ${request.method} ${request.url.pathname}`] };
  const { operation, pathParams } = found;
  const declared = operation.parameters ?? [];
  for (const param of declared.filter((p) => p.in === "path")) {
    const raw = pathParams[param.name] ?? "";
    if (param.schema.type !== "string" && raw === "") problems.push(`path ${param.name} is empty`);
    if (raw !== "") problems.push(...valueProblems(`path ${param.name}`, decodeURIComponent(raw), param));
  }
  const query = request.url.searchParams;
  for (const name of new Set(query.keys())) {
    const param = declared.find((p) => p.in === "query" && p.name === name);
    if (!param) {
      problems.push(`query ${name} is not a parameter of ${operation.operationId}`);
      continue;
    }
    const values = query.getAll(name);
    if (values.length > 1) problems.push(`query ${name} repeated`);
    problems.push(...valueProblems(`query ${name}`, values[0] ?? "", param));
  }
  for (const param of declared.filter((p) => p.required && p.in === "query")) {
    if (!query.has(param.name)) problems.push(`required query ${param.name} missing`);
  }
  for (const param of declared.filter((p) => p.in === "header")) {
    const value = request.headers.get(param.name);
    if (param.required && value === null) problems.push(`required header ${param.name} missing`);
  }
  if (!/^Bearer \S+$/.test(request.headers.get("authorization") ?? "")) {
    problems.push("Authorization is not a Bearer token");
  }
  if (!(request.headers.get("accept") ?? "").includes("application/json"))
    problems.push("Accept is not JSON");
  problems.push(...bodyProblems(request, await request.body, operation));
  return { operationId: operation.operationId, problems };
}

function valueProblems(where: string, value: string, param: Parameter): string[] {
  const { type, enum: allowed, maximum } = param.schema;
  if (type === "integer") {
    if (!/^-?\d+$/.test(value)) return [`${where} is not an integer: ${value}`];
    if (maximum !== undefined && Number(value) > maximum) return [`${where} above ${maximum}: ${value}`];
  }
  if (type === "boolean" && value !== "true" && value !== "false") return [`${where} is not a boolean`];
  if (allowed && !allowed.includes(value)) return [`${where} is not one of ${allowed.join(", ")}: ${value}`];
  return [];
}

function bodyProblems(request: Seen, text: string, operation: Operation): string[] {
  const schema = operation.requestBody?.content["application/json"].schema;
  if (!schema) return text ? [`${operation.operationId} takes no body`] : [];
  if (!(request.headers.get("content-type") ?? "").startsWith("application/json")) {
    return ["body is not sent as application/json"];
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return ["body is not JSON"];
  }
  let validate = validators.get(operation.operationId);
  if (!validate) {
    // The upstream's oneOf branches overlap (see src/body.ts): checked as anyOf.
    validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"oneOf":', '"anyOf":')));
    validators.set(operation.operationId, validate);
  }
  return validate(body)
    ? []
    : (validate.errors ?? []).map((error) => `body ${error.instancePath || "/"} ${error.message}`);
}
