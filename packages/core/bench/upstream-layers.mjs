#!/usr/bin/env node
// Where an upstream GET's cost goes, layer by layer, in one process: the same GET of a 5.5 KB JSON
// answer from a local node:http upstream (a child process, so its work is not counted) made
//   1. with fetch, the answer read with `text()` and parsed: what a bare SDK tool does;
//   2. with ky (its default instance, no retries): the library core sends through;
//   3. through `createUpstream().send` (ky with core's policy, its fetch following redirects and
//      reading the answer within the size limit), the answer parsed;
//   4. through `createHttpClient().request`, as every toolkit's client calls it.
// Prints this process's CPU per request in microseconds (median over rounds run in a shuffled
// order each time) and each layer's ratio to the first, measured round by round. The stdio call
// goal (`apps/mcp-server/bench/overhead.mjs`) compares a whole tool call with the first.
// Run after `pnpm build`: `node bench/upstream-layers.mjs [--rounds 24]`.
import { fork } from "node:child_process";
import { createServer } from "node:http";
import { parseArgs } from "node:util";

const ANSWER_BYTES = 5_500;
const REQUESTS_PER_ROUND = 800;
const WARM_ROUNDS = 2;

if (process.argv[2] === "--upstream") {
  // A JSON answer shaped like an API's record: nested objects and short strings.
  const record = (i) => ({ id: `P${i}`, name: `Record ${i}`, created_at: "2026-11-28T00:00:00Z", ok: true });
  const items = [];
  while (JSON.stringify({ items }).length < ANSWER_BYTES) items.push(record(items.length));
  const body = JSON.stringify({ items });
  const server = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "application/json" }).end(body);
  });
  server.listen(0, "127.0.0.1", () => process.send?.({ port: server.address().port, bytes: body.length }));
} else {
  await measure();
}

async function measure() {
  const { values } = parseArgs({ options: { rounds: { type: "string", default: "24" } } });
  const rounds = Number(values.rounds);
  const { createHttpClient, createUpstream } = await import("../dist/index.js");
  const { default: ky } = await import("ky");
  const upstream = fork(new URL(import.meta.url).pathname, ["--upstream"]);
  const { port, bytes } = await new Promise((resolve) => upstream.once("message", resolve));
  const baseUrl = `http://127.0.0.1:${port}`;
  const url = `${baseUrl}/items/1`;
  const headers = { accept: "application/json", authorization: "Bearer bench" };
  const send = createUpstream();
  const client = createHttpClient({ baseUrl, authorization: () => headers.authorization });
  const exchange = {
    method: "GET",
    url,
    headers,
    idempotent: true,
    target: "/items/{id}",
    template: "/items/{id}",
    label: "GET /items/{id}",
  };
  const layers = {
    "fetch, text(), JSON.parse": async () => JSON.parse(await (await fetch(url, { headers })).text()),
    "ky (default instance, no retries)": async () => JSON.parse(await ky(url, { headers, retry: 0 }).text()),
    "core createUpstream().send": async () => JSON.parse((await send.send(exchange)).text),
    "core createHttpClient().request": async () =>
      (await client.request({ method: "GET", path: "/items/{id}", pathParams: { id: "1" } })).data,
  };
  const names = Object.keys(layers);
  const [reference] = names;
  const cpu = Object.fromEntries(names.map((name) => [name, []]));
  const ratios = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < rounds + WARM_ROUNDS; round++) {
    const spent = {};
    for (const name of shuffled(names)) {
      const started = process.cpuUsage();
      for (let i = 0; i < REQUESTS_PER_ROUND; i++) await layers[name]();
      const { user, system } = process.cpuUsage(started);
      spent[name] = (user + system) / REQUESTS_PER_ROUND;
    }
    if (round < WARM_ROUNDS) continue;
    for (const name of names) {
      cpu[name].push(spent[name]);
      ratios[name].push(spent[name] / spent[reference]);
    }
  }
  upstream.kill();
  console.log(
    `\nAn upstream GET of a ${bytes}-byte JSON answer, layer by layer (this process's CPU per request; ${rounds} rounds of ${REQUESTS_PER_ROUND}, order shuffled each round)`,
  );
  console.table(
    names.map((name) => ({
      layer: name,
      "CPU µs": median(cpu[name]).toFixed(0),
      [`× ${reference}`]: `${median(ratios[name]).toFixed(2)}×`,
      "range over rounds": `${Math.min(...ratios[name]).toFixed(2)}–${Math.max(...ratios[name]).toFixed(2)}×`,
    })),
  );
}

function shuffled(items) {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1];
}
