#!/usr/bin/env node
// Writes test/vendor/google-openapi.json: the methods the sheets tools call, from Google's discovery
// documents, as one OpenAPI 3 description, the form the test kit's request contract reads.
// Source: the project's shared/upstream/{sheets-v4,drive-v3,oauth2-v2}-discovery.json.
// Usage: node scripts/vendor-discovery.mjs [path/to/shared/upstream]
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const source = process.argv[2] ?? join(here, "../../../../shared/upstream");
const target = join(here, "../test/vendor/google-openapi.json");

const WANTED = {
  "sheets-v4-discovery.json": [
    "sheets.spreadsheets.create",
    "sheets.spreadsheets.get",
    "sheets.spreadsheets.batchUpdate",
    "sheets.spreadsheets.values.update",
    "sheets.spreadsheets.values.batchUpdate",
  ],
  "drive-v3-discovery.json": ["drive.files.list", "drive.about.get"],
  "oauth2-v2-discovery.json": ["oauth2.userinfo.get"],
};

const number = (value) => (value === undefined ? undefined : Number(value));
const defined = (object) =>
  Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));

/** A discovery parameter's value schema: a repeated one takes an array of them. */
function parameterSchema(spec) {
  const one = defined({
    type: spec.type,
    enum: spec.enum,
    format: spec.format,
    minimum: number(spec.minimum),
    maximum: number(spec.maximum),
    // Discovery documents only mark path parameters required; Google also refuses blank ones.
    pattern: spec.location === "path" ? "\\S" : undefined,
  });
  return spec.repeated ? { type: "array", items: one } : one;
}

const parameter = (name, spec) =>
  defined({
    name,
    in: spec.location,
    required: spec.required || spec.location === "path" || undefined,
    schema: parameterSchema(spec),
  });

/** A body property's type; nested schemas count only as objects, so the file stays small. */
function propertySchema(property) {
  if (property.$ref) return { type: "object" };
  const type = property.type === "any" ? undefined : property.type;
  const items = property.items && propertySchema(property.items);
  return defined({ type, enum: property.enum, items });
}

/** The request body: the named schema's own fields, and no others. */
function requestBody(doc, name) {
  const properties = doc.schemas[name].properties;
  const schema = {
    title: name,
    type: "object",
    properties: Object.fromEntries(
      Object.keys(properties)
        .sort()
        .map((key) => [key, propertySchema(properties[key])]),
    ),
    additionalProperties: false,
  };
  return { required: true, content: { "application/json": { schema } } };
}

function* methods(node) {
  for (const method of Object.values(node.methods ?? {})) yield method;
  for (const resource of Object.values(node.resources ?? {})) yield* methods(resource);
}

// Each API's global parameters (`fields`, `alt`, …), shared by its operations through $refs.
const componentName = (api, name) => `${api}.${name.replace(/[^A-Za-z0-9_-]/g, "_")}`;
const shared = {};
const paths = {};
const sources = [];

for (const [file, ids] of Object.entries(WANTED)) {
  const doc = JSON.parse(readFileSync(join(source, file), "utf8"));
  sources.push({ file, name: doc.name, version: doc.version, revision: doc.revision });
  const globals = Object.entries(doc.parameters ?? {}).map(([name, spec]) => {
    shared[componentName(doc.name, name)] = parameter(name, spec);
    return { $ref: `#/components/parameters/${componentName(doc.name, name)}` };
  });
  const found = new Map([...methods(doc)].map((method) => [method.id, method]));
  for (const id of ids) {
    const method = found.get(id);
    if (!method) throw new Error(`${file} has no method ${id}`);
    const template = method.flatPath ?? method.path;
    if (template.includes("{+")) throw new Error(`${id}: a reserved expansion ({+…}) has no OpenAPI form`);
    const path = `/${doc.servicePath}${template}`;
    const verb = method.httpMethod.toLowerCase();
    paths[path] ??= { servers: [{ url: doc.rootUrl.replace(/\/$/, "") }] };
    if (paths[path][verb]) throw new Error(`${method.httpMethod} ${path} is vendored twice`);
    paths[path][verb] = defined({
      operationId: id,
      parameters: [
        ...Object.entries(method.parameters ?? {})
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([name, spec]) => parameter(name, spec)),
        ...globals,
      ],
      requestBody: method.request && requestBody(doc, method.request.$ref),
    });
  }
}

const description = {
  openapi: "3.0.3",
  info: {
    title: "Google's Sheets, Drive and OAuth2 APIs",
    version: sources.map((s) => `${s.name} ${s.version} ${s.revision}`).join(", "),
  },
  "x-generated-by": "packages/sheets/scripts/vendor-discovery.mjs",
  "x-sources": sources,
  paths,
  components: { parameters: shared },
};
writeFileSync(target, `${JSON.stringify(description, null, 2)}\n`);
console.error(`wrote ${target}`);
