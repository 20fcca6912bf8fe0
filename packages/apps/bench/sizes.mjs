#!/usr/bin/env node
// Prints each built view's size, as a host receives it (minified HTML, over stdio uncompressed
// inside JSON) and gzipped (as HTTP may send it), against the budget: a goal of 300 KiB minified,
// and 800 KiB at most (past about 1 MiB some hosts refuse a view). Exits 1 past the limit.
// Run after `pnpm build` (the bench task depends on it).
import { KIB, viewSizes } from "../scripts/sizes.mjs";

const GOAL_KIB = 300;
const LIMIT_KIB = 800;
const kib = (bytes) => (bytes / KIB).toFixed(1);

const rows = viewSizes();
console.log("view        minified KiB   gzipped KiB   budget");
for (const { view, minified, gzipped } of rows) {
  const budget =
    minified <= GOAL_KIB * KIB
      ? "within the goal"
      : minified <= LIMIT_KIB * KIB
        ? `over the ${GOAL_KIB} KiB goal`
        : "OVER THE LIMIT";
  console.log(`${view.padEnd(12)}${kib(minified).padStart(12)}${kib(gzipped).padStart(14)}   ${budget}`);
}
if (rows.some((row) => row.minified > LIMIT_KIB * KIB)) {
  console.error(`A view is over ${LIMIT_KIB} KiB.`);
  process.exit(1);
}
