#!/usr/bin/env node
// The cost of redacting one log line with 4,096 secrets registered (the most the process-wide set
// keeps): three typical lines of the server's log, through `redact()` and through what the server's
// logger runs per line (`redactJson()`; `redact()` in builds before it). Prints microseconds per
// line (median of 15 rounds) and whether the logger's figure meets the goal.
// Run after `pnpm build`: `node bench/redaction.mjs` (or `pnpm bench`). To compare another build of
// this package (an older commit's, say): `node bench/redaction.mjs --core <its dist/index.js>`.
import { randomBytes } from "node:crypto";
import { pathToFileURL } from "node:url";

const REGISTERED = 4_096;
const ROUNDS = 15;
const LINES_PER_ROUND = 2_000;
/** The most the logger may spend on a line, in microseconds (median). */
const GOAL_US = 50;

const flag = process.argv.indexOf("--core");
const build = flag > 0 ? pathToFileURL(process.argv[flag + 1] ?? "").href : "../dist/index.js";
const core = await import(build);

// Shaped like what a server wraps: Google access tokens, PagerDuty tokens, Customer.io App API keys.
const shapes = [
  () => `ya29.a0${randomBytes(90).toString("base64url")}`,
  () => `pdus+_0X${randomBytes(30).toString("base64url")}`,
  () => randomBytes(16).toString("hex"),
];
const values = Array.from({ length: REGISTERED }, (_, i) => shapes[i % shapes.length]());
for (const value of values) new core.Secret("BENCH_TOKEN", value);

const line = (fields) => `${JSON.stringify({ level: 30, time: Date.now(), ...fields })}\n`;
const lines = [
  [
    "audit line",
    line({
      principal: "https://idp.example.com#alice",
      tool: "Pager.ListIncidents",
      outcome: "ok",
      duration_ms: 123.4,
      upstream_requests: 2,
      msg: "tool call",
    }),
  ],
  [
    "warning quoting an upstream",
    line({
      provider: "google",
      reason:
        "Could not reach https://oauth2.googleapis.com/token to refresh the Google sign-in: fetch failed (connect ETIMEDOUT 142.250.74.74:443) after 3 attempts; the grant stays until it expires",
      msg: "connect token exchange failed",
    }),
  ],
  [
    "line carrying a secret",
    line({
      reason: `upstream said: Authorization Bearer ${values[REGISTERED - 7]} is not valid for this workspace`,
      msg: "tool failed unexpectedly",
    }),
  ],
];

/** Median microseconds per call of `scrub` on `text`. */
function perLine(scrub, text) {
  for (let i = 0; i < 200; i++) scrub(text);
  const rounds = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    for (let i = 0; i < LINES_PER_ROUND; i++) scrub(text);
    rounds.push(((performance.now() - started) * 1000) / LINES_PER_ROUND);
  }
  rounds.sort((a, b) => a - b);
  return rounds[Math.floor(ROUNDS / 2)];
}

const logger = core.redactJson ?? core.redact;
const rows = [];
for (const [label, text] of lines) {
  const viaLogger = perLine(logger, text);
  const met = viaLogger <= GOAL_US ? "met" : "missed";
  rows.push([
    label,
    String(text.length),
    perLine(core.redact, text).toFixed(1),
    viaLogger.toFixed(1),
    `<= ${GOAL_US}: ${met}`,
  ]);
}
if (core.withSecretScope) {
  // A call acting as one person: its own token registered in its scope, besides the 4,096.
  const [label, text] = lines[1];
  const scoped = core.withSecretScope(() => {
    new core.Secret("PERSON_TOKEN", randomBytes(24).toString("base64url"));
    return [perLine(core.redact, text), perLine(logger, text)];
  });
  rows.push([
    `${label}, in a call's secret scope`,
    String(text.length),
    ...scoped.map((us) => us.toFixed(1)),
    "",
  ]);
}

const header = ["line", "chars", "redact µs", "logger µs", "goal"];
const widths = header.map((title, column) =>
  Math.max(title.length, ...rows.map((row) => row[column].length)),
);
const format = (row) => row.map((cell, column) => cell.padEnd(widths[column])).join("  ");
console.log(`Redacting one log line, ${REGISTERED} secrets registered (${build}; logger: ${logger.name})`);
console.log(format(header));
for (const row of rows) console.log(format(row));
