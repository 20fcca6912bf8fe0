#!/usr/bin/env node
// Writes test/vendor/google-discovery.json: the parts of Google's discovery documents the contract
// test checks requests against, for the methods the sheets tools call. Source: the project's
// shared/upstream/{sheets-v4,drive-v3,oauth2-v2}-discovery.json.
// Usage: node scripts/vendor-discovery.mjs [path/to/shared/upstream]
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const source = process.argv[2] ?? join(here, "../../../../shared/upstream");
const target = join(here, "../test/vendor/google-discovery.json");

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
const PARAMETER_KEYS = ["type", "location", "repeated", "required", "enum", "format"];

const pick = (object, keys) =>
  Object.fromEntries(keys.filter((key) => key in object).map((key) => [key, object[key]]));
const parameters = (map = {}) =>
  Object.fromEntries(Object.entries(map).map(([name, spec]) => [name, pick(spec, PARAMETER_KEYS)]));

function* methods(node) {
  for (const method of Object.values(node.methods ?? {})) yield method;
  for (const resource of Object.values(node.resources ?? {})) yield* methods(resource);
}

const apis = Object.entries(WANTED).map(([file, ids]) => {
  const doc = JSON.parse(readFileSync(join(source, file), "utf8"));
  const found = new Map([...methods(doc)].map((method) => [method.id, method]));
  const kept = ids.map((id) => {
    const method = found.get(id);
    if (!method) throw new Error(`${file} has no method ${id}`);
    const request = method.request?.$ref;
    return [
      id,
      {
        httpMethod: method.httpMethod,
        path: method.flatPath ?? method.path,
        parameters: parameters(method.parameters),
        ...(request
          ? { request: { schema: request, properties: Object.keys(doc.schemas[request].properties).sort() } }
          : {}),
      },
    ];
  });
  return {
    source: file,
    name: doc.name,
    version: doc.version,
    revision: doc.revision,
    rootUrl: doc.rootUrl,
    servicePath: doc.servicePath,
    parameters: parameters(doc.parameters),
    methods: Object.fromEntries(kept),
  };
});

writeFileSync(
  target,
  `${JSON.stringify({ generatedBy: "packages/sheets/scripts/vendor-discovery.mjs", from: "shared/upstream", apis }, null, 2)}\n`,
);
console.error(`wrote ${target}`);
