#!/usr/bin/env node
// Refreshes the vendored generator inputs in data/ from upstream copies, trimmed to what the
// generator and the tests read (the rule is spelt out in data/README.md). Run it only when the
// upstream changes, then `pnpm --filter @toolkits/marketing generate` and review both diffs:
//   node scripts/vendor.mjs <customerio-app-openapi.json> <marketing-endpoints.json> <catalog.json>
import { readFileSync, writeFileSync } from "node:fs";

const [openapiPath, mapPath, catalogPath] = process.argv.slice(2);
if (!catalogPath) {
  console.error("usage: node scripts/vendor.mjs <openapi.json> <endpoints.json> <catalog.json>");
  process.exit(2);
}
const vendor = new URL("../data/", import.meta.url);
const readJson = (path) => JSON.parse(readFileSync(path, "utf8"));
const writeJson = (name, value) =>
  writeFileSync(new URL(name, vendor), `${JSON.stringify(value, null, 2)}\n`);
const TOOL_PREFIX = "MarketingApi.";

/** A schema without its `description` texts; property names, examples and enumerations stay. */
function withoutDescriptions(schema) {
  if (Array.isArray(schema)) return schema.map(withoutDescriptions);
  if (!schema || typeof schema !== "object") return schema;
  const kept = Object.entries(schema).filter(([key]) => key !== "description");
  return Object.fromEntries(
    kept.map(([key, value]) => {
      if (key === "example" || key === "enum" || key === "default") return [key, value];
      if (key !== "properties") return [key, withoutDescriptions(value)];
      return [key, Object.fromEntries(Object.entries(value).map(([n, p]) => [n, withoutDescriptions(p)]))];
    }),
  );
}

/** Path-level parameters folded into the operation's, so that every value under a path is an operation. */
function parameters(item, op) {
  const all = [...(item.parameters ?? []), ...(op.parameters ?? [])];
  return all.map(({ name, in: where, required, description, schema }) => ({
    name,
    in: where,
    ...(required ? { required } : {}),
    ...(description ? { description } : {}),
    schema,
  }));
}

function requestBody(op) {
  const media = op.requestBody?.content?.["application/json"];
  if (!media) return {};
  const example = media.example === undefined ? {} : { example: media.example };
  return { requestBody: { content: { "application/json": { schema: media.schema, ...example } } } };
}

/** The first 2xx answer: its description, and its JSON schema (descriptions dropped) and example. */
function successResponse(op) {
  const [status, response] = Object.entries(op.responses).find(([code]) => code.startsWith("2"));
  const media = response.content?.["application/json"];
  const content = media && {
    "application/json": {
      schema: withoutDescriptions(media.schema),
      ...(media.example === undefined ? {} : { example: media.example }),
    },
  };
  return { [status]: { description: response.description, ...(content ? { content } : {}) } };
}

function trimOperation(item, op) {
  const params = parameters(item, op);
  return {
    operationId: op.operationId,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    ...(params.length ? { parameters: params } : {}),
    ...requestBody(op),
    responses: successResponse(op),
  };
}

const openapi = readJson(openapiPath);
const map = readJson(mapPath);
const paths = {};
for (const { path, method } of map) {
  const item = openapi.paths[path];
  paths[path] ??= {};
  paths[path][method.toLowerCase()] = trimOperation(item, item[method.toLowerCase()]);
}
const usedTags = new Set(map.map((entry) => entry.tag));
writeJson("customerio-app-openapi.trimmed.json", {
  "x-source":
    "Trimmed by packages/marketing/scripts/vendor.mjs from customerio-app-openapi.json; see data/README.md.",
  openapi: openapi.openapi,
  info: { title: openapi.info.title, version: openapi.info.version },
  servers: openapi.servers.map(({ url }) => ({ url })),
  components: { securitySchemes: openapi.components.securitySchemes },
  tags: openapi.tags
    .filter((tag) => usedTags.has(tag.name))
    .map(({ name, description }) => ({ name, description })),
  paths,
});

writeFileSync(new URL("marketing-endpoints.json", vendor), readFileSync(mapPath));

const catalog = readJson(catalogPath);
writeJson(
  "catalog.marketing.json",
  Object.fromEntries(Object.entries(catalog).filter(([tool]) => tool.startsWith(TOOL_PREFIX))),
);
console.error(`vendored ${map.length} operations into data/`);
