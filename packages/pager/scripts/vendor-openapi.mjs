#!/usr/bin/env node
// Writes vendor/pagerduty-openapi.json: PagerDuty's OpenAPI description cut down to the GET
// operations the Pager.* tools call, with every component they reference (transitively), so the
// contract test and the sandbox's fixture shapes need nothing outside this package.
// Usage: node scripts/vendor-openapi.mjs [path to pagerduty-openapi.json]
import { readFileSync, writeFileSync } from "node:fs";

const SOURCE = "shared/upstream/pagerduty-openapi.json";
const OPERATIONS = [
  "/users/me",
  "/users",
  "/oncalls",
  "/incidents",
  "/incidents/{id}",
  "/log_entries",
  "/escalation_policies",
  "/escalation_policies/{id}",
  "/services",
  "/services/{id}",
  "/schedules",
  "/teams",
  "/teams/{id}",
  "/teams/{id}/members",
];

const input = process.argv[2] ?? new URL(`../../../../${SOURCE}`, import.meta.url);
const full = JSON.parse(readFileSync(input, "utf8"));

const paths = Object.fromEntries(OPERATIONS.map((path) => [path, { get: full.paths[path].get }]));
const components = {};
const pending = [paths];
while (pending.length) {
  for (const ref of refsIn(pending.pop())) {
    const [, , section, name] = ref.split("/");
    components[section] ??= {};
    if (components[section][name]) continue;
    components[section][name] = full.components[section][name];
    pending.push(components[section][name]);
  }
}

const trimmed = {
  "x-vendored-from": `${SOURCE} (PagerDuty/api-schema), trimmed by scripts/vendor-openapi.mjs`,
  openapi: full.openapi,
  info: { title: full.info.title, version: full.info.version },
  servers: full.servers,
  paths,
  components: sortKeys(components),
};
const out = new URL("../vendor/pagerduty-openapi.json", import.meta.url);
writeFileSync(out, `${JSON.stringify(trimmed, null, 1)}\n`);
console.warn(`wrote ${out.pathname}: ${OPERATIONS.length} operations`);

function refsIn(value, found = new Set()) {
  if (Array.isArray(value)) for (const item of value) refsIn(item, found);
  else if (value && typeof value === "object") {
    for (const [key, field] of Object.entries(value)) {
      if (key === "$ref" && typeof field === "string") found.add(field);
      else refsIn(field, found);
    }
  }
  return found;
}

function sortKeys(sections) {
  return Object.fromEntries(
    Object.entries(sections).map(([section, items]) => [
      section,
      Object.fromEntries(Object.entries(items).sort(([a], [b]) => a.localeCompare(b))),
    ]),
  );
}
