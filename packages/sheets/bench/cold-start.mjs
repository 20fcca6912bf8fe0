#!/usr/bin/env node
// What the lazy Google client import buys: the package's import time in a fresh process, then
// the first and a warm Sheets.GetSpreadsheet against the sandbox (the first pays for loading
// @googleapis/sheets). Prints figures only. Run after `pnpm build`: `pnpm bench`.
import { execFileSync } from "node:child_process";
import { envHost, invokeTool } from "@toolkits/core";
import { setupServer } from "msw/node";

const RUNS = 7;
const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];

const importScript = `
const started = performance.now();
await import(${JSON.stringify(new URL("../dist/index.js", import.meta.url).href)});
process.stdout.write(String(performance.now() - started));`;
const importMs = median(
  Array.from({ length: RUNS }, () =>
    Number(execFileSync(process.execPath, ["--input-type=module", "-e", importScript], { encoding: "utf8" })),
  ),
);

const { getSpreadsheet } = await import("../dist/index.js");
const { sandbox } = await import("../dist/sandbox/index.js");
const box = sandbox();
const server = setupServer(...box.handlers);
server.listen({ onUnhandledRequest: "error" });
const host = envHost({ GOOGLE_ACCESS_TOKEN: box.tokens.google });
const read = async () => {
  const started = performance.now();
  const outcome = await invokeTool(getSpreadsheet, { spreadsheet_id: "quarterly-report-0" }, host);
  if (!outcome.ok) throw new Error(outcome.error.toText());
  return performance.now() - started;
};
const firstMs = await read();
const warmMs = median(
  await Array.from({ length: RUNS }).reduce(async (all) => [...(await all), await read()], []),
);
server.close();

process.stdout.write(
  [
    `import @toolkits/sheets (fresh process, median of ${RUNS}): ${importMs.toFixed(0)} ms`,
    `first Sheets.GetSpreadsheet (loads @googleapis/sheets): ${firstMs.toFixed(0)} ms`,
    `warm Sheets.GetSpreadsheet (median of ${RUNS}): ${warmMs.toFixed(1)} ms`,
    "",
  ].join("\n"),
);
