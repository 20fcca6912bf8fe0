// What strangers and busy agents cost the team store, on real sockets against the built server on a
// real redis-server and on the embedded file store: requests to /connect from browsers that are
// not signed in write nothing (what a browser needs before signing in travels in its own sealed
// cookie), and however often a person's calls ask them to connect a provider, they hold one live
// connect code for it.
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callAs, connectLinkIn } from "./calls.js";
import { INSTALL_TIMEOUT_MS } from "./debian.js";
import { type Deployment, type Layout, startDeployment, storeRecordNames } from "./deployment.js";

const LAYOUTS: Layout[] = [
  { name: "one process on Redis", replicas: 1, store: "redis" },
  { name: "one process on the embedded file store", replicas: 1, store: "file" },
];

const UNAUTHENTICATED_REQUESTS = 1_000;
const random = () => randomBytes(24).toString("base64url");

/** The requests a stranger can send to /connect without a cookie, taken in turn. */
const STRANGER_REQUESTS: ((base: string) => [string, RequestInit])[] = [
  (base) => [`${base}/connect`, {}],
  (base) => [`${base}/connect/sign-in`, {}],
  (base) => [`${base}/connect/pager?code=${random()}`, {}],
  (base) => [`${base}/connect/google?code=${random()}`, {}],
  (base) => [`${base}/connect/signed-in?state=${random()}&code=${random()}`, {}],
  (base) => [
    `${base}/connect/sign-in`,
    {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `csrf=${random()}&token=${random()}`,
    },
  ],
];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

describe.each(LAYOUTS)("the connect pages' use of the store: $name", (layout) => {
  let d: Deployment;

  beforeAll(async () => {
    d = await startDeployment(layout);
  }, INSTALL_TIMEOUT_MS);
  afterAll(() => d?.stop());

  const recordNames = () => storeRecordNames(d);

  /** The store file's text; empty before the first write. */
  const storeText = () => readFile(d.storeFile ?? "", "utf8").catch(() => "");
  const storeBytes = async () => Buffer.byteLength(await storeText());

  it(`keeps no record of ${UNAUTHENTICATED_REQUESTS} requests from browsers that are not signed in, nor slows down with them`, async () => {
    const before = await recordNames();
    const bytesBefore = await storeBytes();
    const took: number[] = [];
    for (let index = 0; index < UNAUTHENTICATED_REQUESTS; index++) {
      const make = STRANGER_REQUESTS[index % STRANGER_REQUESTS.length];
      const [url, init] = make?.(d.url) ?? [d.url, {}];
      const started = performance.now();
      const response = await fetch(url, { ...init, redirect: "manual" });
      await response.arrayBuffer();
      took.push(performance.now() - started);
      expect(response.status, url).toBeLessThan(500);
    }
    const added = (await recordNames()).length - before.length;
    const grew = (await storeBytes()) - bytesBefore;
    const first = median(took.slice(0, 100));
    const last = median(took.slice(-100));
    const figures = `${added} records, ${grew} bytes of store file, median ${first.toFixed(1)} ms for the first 100 requests and ${last.toFixed(1)} ms for the last 100`;
    expect(added, figures).toBeLessThanOrEqual(100);
    expect(grew, figures).toBeLessThanOrEqual(0);
    expect(last, figures).toBeLessThan(first * 2 + 2);
  }, 120_000);

  it("holds one live connect code per person and provider however many calls ask to connect", async () => {
    const liveCodes = async () => (await recordNames()).filter((name) => name.startsWith("tk:code:")).length;
    const before = await liveCodes();
    const links = new Set<string>();
    for (let batch = 0; batch < 4; batch++) {
      const answers = await Promise.all(Array.from({ length: 50 }, () => callAs(d, "alice", "Pager_WhoAmI")));
      for (const answer of answers) links.add(connectLinkIn(d, answer, "pager"));
    }
    const pagerCodes = (await liveCodes()) - before;
    links.add(connectLinkIn(d, await callAs(d, "alice", "Sheets_WhoAmI"), "google"));
    const codes = (await liveCodes()) - before;
    expect(pagerCodes).toBe(1);
    expect(codes).toBe(2);
    expect(links.size).toBe(2);
    // Bob's calls get his own code.
    const bobs = connectLinkIn(d, await callAs(d, "bob", "Pager_WhoAmI"), "pager");
    expect(links.has(bobs)).toBe(false);
  }, 120_000);
});
