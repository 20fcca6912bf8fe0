import { sandbox } from "@toolkits/pager/sandbox";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { connectHttp, connectStdio, type TestClient } from "./clients.js";
import {
  cutAfterHeaders,
  drip,
  flood,
  json,
  type LocalUpstream,
  localUpstream,
  peakMemory,
  redirect,
} from "./hardening-upstreams.js";
import { startHttpServer } from "./spawn.js";

// The upstream policy's limits end to end: the built server over stdio (and HTTP where the test
// needs the process), with every toolkit pointed at a local stand-in upstream that drips, cuts,
// floods and redirects. Each test asserts what a model reads and what reached the upstream.

const CREDENTIALS = {
  PAGER_ACCESS_TOKEN: "pager-token-for-hardening-e2e",
  GOOGLE_ACCESS_TOKEN: "google-token-for-hardening-e2e",
  MARKETING_API_KEY: "marketing-key-for-hardening-e2e",
};
const { account } = sandbox();
const services = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    ...account.services[i % account.services.length],
    id: `PS${i}`,
  }));
const servicesPage = (count = 3) => ({ services: services(count), limit: 10, offset: 0, more: false });
const SEND_EMAIL = {
  mode: "execute",
  request_body: JSON.stringify({
    transactional_message_id: 44,
    to: "p@example.com",
    identifiers: { id: "1" },
  }),
};
/** What a model reads when a request that is not idempotent got only part of its answer. */
const EFFECT_UNKNOWN =
  "The request reached the upstream, so its effect is unknown; it was not repeated (that could do it twice). Check whether it took effect before calling again.";

let upstream: LocalUpstream;
let elsewhere: LocalUpstream;
let client: TestClient;

beforeAll(async () => {
  upstream = await localUpstream();
  elsewhere = await localUpstream();
  client = await connectStdio("v1", [], {
    PAGER_API_URL: upstream.origin,
    GOOGLE_API_ROOT_URL: upstream.origin,
    MARKETING_API_URL: upstream.origin,
    ...CREDENTIALS,
  });
});
beforeEach(() => {
  upstream.reset();
  elsewhere.reset();
  elsewhere.answer = (res) => json(res, { sent: true });
});
afterAll(async () => {
  await client?.close();
  await upstream?.close();
  await elsewhere?.close();
});

const pathOf = (url: string) => new URL(url, "http://x").pathname;
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("an answer drip-fed after its headers", () => {
  it("is stopped by the attempt limit (MCP_UPSTREAM_TIMEOUT_MS), which covers the body: a timeout, sent once, connection closed", async () => {
    const limited = await connectStdio("v1", [], {
      PAGER_API_URL: upstream.origin,
      MCP_UPSTREAM_TIMEOUT_MS: "2000",
      ...CREDENTIALS,
    });
    upstream.answer = (res) => drip(res);
    const started = performance.now();
    const result = await limited.call("Pager_ListServices");
    const elapsed = performance.now() - started;
    await limited.close();
    expect(result.text).toBe(
      "timeout: GET /services timed out while its answer was still arriving. Retrying later may succeed.",
    );
    expect(elapsed).toBeGreaterThan(1_900);
    expect(elapsed).toBeLessThan(10_000);
    expect(upstream.received).toHaveLength(1);
    await expect.poll(() => upstream.closedEarly).toBe(1);
  });
});

describe("an answer cut off after its headers", () => {
  it("is asked for again on a GET, which then succeeds", async () => {
    upstream.answer = (res) =>
      upstream.received.length === 1 ? cutAfterHeaders(res) : json(res, servicesPage());
    const result = await client.call("Pager_ListServices");
    expect(result.isError, result.text).toBe(false);
    expect(result.data?.services).toHaveLength(3);
    expect(upstream.received).toHaveLength(2);
  });

  it("is not repeated on a POST (Customer.io send), which says the answer was cut off and its effect is unknown", async () => {
    upstream.answer = (res) => cutAfterHeaders(res);
    const result = await client.call("MarketingApi_SendTransactionalEmail", SEND_EMAIL);
    expect(result.text).toMatch(
      new RegExp(
        `^upstream_unavailable: POST /v1/send/email: the upstream's answer was cut off before it was complete \\([^)]+\\)\\. ${literal(EFFECT_UNKNOWN)}$`,
      ),
    );
    expect(upstream.received.map(({ method, url }) => `${method} ${url}`)).toEqual(["POST /v1/send/email"]);
  });

  it("is not repeated on Google's spreadsheets.create either (through the Google client library)", async () => {
    upstream.answer = (res) => cutAfterHeaders(res);
    const result = await client.call("Sheets_CreateSpreadsheet", { title: "Budget" });
    expect(result.text).toMatch(
      new RegExp(
        `^upstream_unavailable: Google spreadsheets\\.create: the upstream's answer was cut off before it was complete \\([^)]+\\)\\. ${literal(EFFECT_UNKNOWN)}$`,
      ),
    );
    expect(upstream.received).toHaveLength(1);
  });
});

describe("an answer over the 20 MB limit", () => {
  it("streamed (250 MB, no Content-Length) stops being read at the limit, and the server's peak memory stays under 400 MB", async () => {
    const huge = await localUpstream();
    let sent = () => 0;
    huge.answer = (res) => {
      sent = flood(res, 250_000_000, false);
    };
    const server = await startHttpServer(["--toolkits", "pager"], {
      PAGER_API_URL: huge.origin,
      PAGER_ACCESS_TOKEN: CREDENTIALS.PAGER_ACCESS_TOKEN,
    });
    const http = await connectHttp("v2", server.url);
    try {
      const started = performance.now();
      const result = await http.call("Pager_ListServices");
      expect(result.text).toBe(
        "upstream_error: GET /services answered with more than 20 MB, the limit on one upstream answer, so reading stopped there. Ask for less at a time (a smaller page or range, narrower filters).",
      );
      expect(performance.now() - started).toBeLessThan(15_000);
      expect(huge.received).toHaveLength(1);
      await expect.poll(() => huge.closedEarly).toBe(1);
      expect(sent()).toBeLessThan(100_000_000);
      const peak = await peakMemory(server.child.pid as number);
      expect(peak, `peak resident memory ${Math.round(peak / 1e6)} MB`).toBeLessThan(400_000_000);
    } finally {
      await http.close();
      await server.stop();
      await huge.close();
    }
  });

  it("declared by Content-Length is refused unread, for Google's calls too", async () => {
    let sent = () => 0;
    upstream.answer = (res) => {
      sent = flood(res, 250_000_000, true);
    };
    const result = await client.call("Sheets_GetSpreadsheetMetadata", { spreadsheet_id: "sheet-1" });
    expect(result.text).toBe(
      "upstream_error: Google spreadsheets.get answered with 250 MB (its Content-Length), over the 20 MB limit on one upstream answer, so it was not read. Ask for less at a time (a smaller page or range, narrower filters).",
    );
    await expect.poll(() => upstream.closedEarly).toBe(1);
    expect(sent()).toBeLessThan(100_000_000);
  });
});

describe("redirects", () => {
  it("to another origin are refused for a POST: its body never reaches that host", async () => {
    upstream.answer = (res) => redirect(res, 307, `${elsewhere.origin}/v1/send/email`);
    const result = await client.call("MarketingApi_SendTransactionalEmail", SEND_EMAIL);
    expect(result.text).toBe(
      `upstream_error: POST /v1/send/email was redirected (HTTP 307) to another origin, ${elsewhere.origin}. Requests are never redirected to other origins, so nothing was resent there; check that the toolkit's API URL setting points at the API itself.`,
    );
    expect(elsewhere.received).toEqual([]);
    expect(upstream.received).toHaveLength(1);
  });

  it("to another origin are refused for Google's GETs too", async () => {
    upstream.answer = (res) => redirect(res, 302, `${elsewhere.origin}/v4/spreadsheets/sheet-1`);
    const result = await client.call("Sheets_GetSpreadsheetMetadata", { spreadsheet_id: "sheet-1" });
    expect(result.text).toMatch(
      new RegExp(
        `^upstream_error: Google spreadsheets\\.get was redirected \\(HTTP 302\\) to another origin, ${literal(elsewhere.origin)}\\.`,
      ),
    );
    expect(elsewhere.received).toEqual([]);
    expect(upstream.received).toHaveLength(1);
  });

  it("within the origin never resend a POST body", async () => {
    upstream.answer = (res, seen) =>
      pathOf(seen.url) === "/v4/spreadsheets"
        ? redirect(res, 307, "/v4/spreadsheets-elsewhere")
        : json(res, {});
    const result = await client.call("Sheets_CreateSpreadsheet", { title: "Budget" });
    expect(result.text).toBe(
      `upstream_error: Google spreadsheets.create was redirected (HTTP 307) within ${upstream.origin}. A request body is never sent twice, so nothing was resent. Check whether it took effect before calling again.`,
    );
    expect(upstream.received.map(({ url }) => pathOf(url))).toEqual(["/v4/spreadsheets"]);
  });

  it("within the origin are followed at most 3 times: a loop costs 4 requests, not 84", async () => {
    upstream.answer = (res) => redirect(res, 302, "/services");
    const result = await client.call("Pager_ListServices");
    expect(result.text).toBe(
      `upstream_error: GET /services was redirected (HTTP 302) within ${upstream.origin} after 3 redirects already followed, the most allowed, so nothing more was sent.`,
    );
    expect(upstream.received).toHaveLength(4);
  });
});

describe("Retry-After", () => {
  it("of 0 still backs off between retries instead of a burst of four requests", async () => {
    upstream.answer = (res) => res.writeHead(429, { "retry-after": "0" }).end();
    const result = await client.call("Pager_ListServices");
    expect(result.text).toMatch(/^rate_limited: GET \/services failed with HTTP 429\. Retry after 1 s\.$/);
    expect(upstream.received).toHaveLength(4);
    const arrivals = upstream.received.map(({ at }) => at);
    const gaps = arrivals.slice(1).map((at, i) => at - (arrivals[i] as number));
    // Core's default policy: at least its 300 ms first backoff per retry.
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(290);
  });

  it("in 2099 is not waited for and reads 'Retry later', not billions of seconds", async () => {
    upstream.answer = (res) => res.writeHead(429, { "retry-after": "Thu, 01 Jan 2099 00:00:00 GMT" }).end();
    const result = await client.call("Pager_ListServices");
    expect(result.text).toBe(
      "rate_limited: GET /services failed with HTTP 429. Retry later: the upstream asked for a wait of over an hour.",
    );
    expect(upstream.received).toHaveLength(1);
  });
});

describe("a pager list page longer than its limit", () => {
  it("keeps `limit` items and says there is more", async () => {
    upstream.answer = (res) => json(res, { services: services(749), limit: 10, offset: 0, more: false });
    const result = await client.call("Pager_ListServices", { limit: 10 });
    expect(result.isError, result.text.slice(0, 300)).toBe(false);
    expect(result.data).toMatchObject({ limit: 10, offset: 0, more: true, next_offset: 10 });
    const kept = (result.data?.services ?? []) as { id: string }[];
    expect(kept.map(({ id }) => id)).toEqual(services(10).map(({ id }) => id));
  });
});

describe("Pager.GetTeam's parallel requests", () => {
  it("stop when one fails: the lists still waiting are aborted when the tool answers", async () => {
    const team = account.teams[0];
    upstream.answer = (res, seen) => {
      const path = pathOf(seen.url);
      if (path === `/teams/${team?.id}`) return json(res, { team });
      // Refused once the other lists are waiting; they would otherwise hang for 30 s.
      if (path === "/escalation_policies")
        return void setTimeout(() => json(res, { error: { message: "Access Denied" } }, 403), 300);
    };
    const result = await client.call("Pager_GetTeam", { team_id: team?.id });
    const answeredAt = performance.now();
    expect(result.text).toMatch(
      /^forbidden: GET \/escalation_policies failed with HTTP 403: Access Denied\./,
    );
    const waiting = upstream.received.filter(({ url }) => /^\/(services|teams\/[^/]+\/members)/.test(url));
    expect(waiting).toHaveLength(2);
    await expect.poll(() => upstream.closedEarly, { timeout: 1_000 }).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(upstream.received.filter(({ at }) => at > answeredAt)).toEqual([]);
  });
});
