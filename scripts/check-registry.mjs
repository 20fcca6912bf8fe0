#!/usr/bin/env node
// Checks server.json, the MCP Registry entry: valid against the registry's own schema (vendored:
// scripts/vendor/mcp-server.schema.json), naming the npm package and version it installs, and the
// name the package claims (`mcpName`, which the registry checks on publishing). Prints one line per
// check and exits 1 when one fails.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv } from "ajv";
import addFormats from "ajv-formats";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const read = (path) => JSON.parse(readFileSync(join(ROOT, path), "utf8"));
const schema = read("scripts/vendor/mcp-server.schema.json");
const entry = read("server.json");
const pkg = read("apps/mcp-server/package.json");

let failures = 0;
function report(name, problem) {
  if (problem) failures++;
  console.log(`${problem ? "FAIL" : "ok  "}  ${name}${problem ? `: ${problem}` : ""}`);
}

// The schema annotates with `example`, which strict mode would take for a misspelt keyword.
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
const valid = ajv.compile(schema);
report(`server.json against ${schema.$id}`, valid(entry) ? undefined : ajv.errorsText(valid.errors));
report(
  "server.json declares that schema",
  entry.$schema === schema.$id ? undefined : `$schema is ${entry.$schema}`,
);
const npm = entry.packages?.find((found) => found.registryType === "npm");
report(
  "its npm package is apps/mcp-server's, at its version",
  npm?.identifier === pkg.name && npm?.version === pkg.version && entry.version === pkg.version
    ? undefined
    : `${npm?.identifier}@${npm?.version} (server ${entry.version}), not ${pkg.name}@${pkg.version}`,
);
report(
  "the package claims the entry's name (mcpName)",
  pkg.mcpName === entry.name ? undefined : `mcpName is ${pkg.mcpName}, the entry's name ${entry.name}`,
);
const remotes = entry.remotes ?? [];
report(
  "it has a remote for /mcp and one for the connector URLs",
  remotes.some((remote) => remote.url.endsWith("/mcp")) &&
    remotes.some((remote) => remote.url.includes("/mcp/{"))
    ? undefined
    : `remotes: ${remotes.map((remote) => remote.url).join(", ")}`,
);
if (failures) process.exit(1);
