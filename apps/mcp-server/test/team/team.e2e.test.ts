// The team deployment end to end, as people use it: Streamable HTTP clients on the 2026-07-28
// revision calling as Alice, Bob and others (front-door JWTs from the mock identity provider), a
// test browser following the connect links, and the fake upstreams checking whose token arrives.
// Run on the compose layout (Redis, two replicas, HAProxy) and on one process with the file store.
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonRpcAnswer } from "../clients.js";
import { browser } from "./browser.js";
import { INSTALL_TIMEOUT_MS } from "./debian.js";
import { type Deployment, type Layout, PAGER_LIMIT, pseudonym, startDeployment } from "./deployment.js";
import { personData } from "./upstreams.js";

const LAYOUTS: Layout[] = [
  { name: "two replicas on Redis behind HAProxy", replicas: 2, store: "redis" },
  { name: "one process on the embedded file store", replicas: 1, store: "file" },
];

/** What a tools/call over HTTP came back as. */
interface Answer {
  /** The HTTP status; 0 when the connection failed. */
  status: number;
  /** The replica that answered (the balancer's `x-replica`), when there is a balancer. */
  replica: string | null;
  isError: boolean;
  /** The first text content, or the JSON-RPC error's message. */
  text: string;
  data: Record<string, unknown> | undefined;
  result: Record<string, unknown> | undefined;
  /** Milliseconds from sending to the answer. */
  tookMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(LAYOUTS)("team deployment: $name", (layout) => {
  let d: Deployment;
  const bearers = new Map<string, string>();
  const multi = layout.replicas > 1;

  beforeAll(async () => {
    d = await startDeployment(layout);
  }, INSTALL_TIMEOUT_MS);
  afterAll(() => d?.stop());

  /** The front-door access token of `person`, as the team's identity provider issues it. */
  async function bearer(person: string): Promise<string> {
    let token = bearers.get(person);
    if (!token) {
      token = await d.idp.server.issuer.buildToken({
        scopesOrTransform: (_header, payload) => Object.assign(payload, { sub: person, aud: d.audience }),
      });
      bearers.set(person, token);
    }
    return token;
  }

  /** Calls `tool` as `person` (on 2026-07-28, stateless), through the balancer unless `to` says where. */
  async function call(
    person: string,
    tool: string,
    args: Record<string, unknown> = {},
    options: { to?: string; capabilities?: Record<string, unknown> } = {},
  ): Promise<Answer> {
    const started = performance.now();
    const body = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: tool,
        arguments: args,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": options.capabilities ?? {},
        },
      },
    };
    try {
      const response = await fetch(`${options.to ?? d.url}/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${await bearer(person)}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": tool,
        },
        body: JSON.stringify(body),
      });
      const replica = response.headers.get("x-replica");
      const tookMs = () => performance.now() - started;
      if (!response.headers.get("content-type")?.match(/json|event-stream/))
        return {
          status: response.status,
          replica,
          isError: true,
          text: await response.text(),
          data: undefined,
          result: undefined,
          tookMs: tookMs(),
        };
      const message = await jsonRpcAnswer(response);
      const result = message.result as Record<string, unknown> | undefined;
      const error = message.error as { message: string } | undefined;
      const content = result?.content as { type: string; text?: string }[] | undefined;
      return {
        status: response.status,
        replica,
        isError: error !== undefined || result?.isError === true,
        text: error?.message ?? content?.[0]?.text ?? "",
        data: result?.structuredContent as Record<string, unknown> | undefined,
        result,
        tookMs: tookMs(),
      };
    } catch (error) {
      const tookMs = performance.now() - started;
      return {
        status: 0,
        replica: null,
        isError: true,
        text: String(error),
        data: undefined,
        result: undefined,
        tookMs,
      };
    }
  }

  /** The connect link in an answer asking to connect `provider`. */
  function linkIn(answer: Answer, provider: string): string {
    expect(answer.isError, answer.text).toBe(true);
    expect(answer.text).toMatch(
      /^(unauthenticated: Your .+ is not connected yet|forbidden: Your .+ does not grant)/,
    );
    const link = new RegExp(`${d.url}/connect/${provider}\\?code=[\\w-]+`).exec(answer.text)?.[0];
    expect(link, answer.text).toBeTruthy();
    return link ?? "";
  }

  /** `person` calls `tool`, gets a link, follows it in a browser signed in as themselves. */
  async function connectOAuth(person: string, tool: string, provider: "pager" | "google", title: string) {
    const link = linkIn(await call(person, tool), provider);
    const page = await browser({ user: person }).open(link);
    expect(page.status, page.text).toBe(200);
    expect(page.text).toContain(`Connected ${title} as ${person}@example.com`);
  }

  /** Each replica's own URL, round robin over `count` calls. */
  const spread = (count: number) =>
    Array.from({ length: count }, (_, index) => d.replicas[index % d.replicas.length]?.url);

  it("answers Alice's first Pager call with a connect link, and once she follows it her retry succeeds (through the other replica)", async () => {
    const first = await call("alice", "Pager_WhoAmI");
    const link = linkIn(first, "pager");
    expect(first.text).toContain("then call again");
    expect(d.upstreams.of("pagerduty")).toEqual([]);

    // A client that takes URL elicitations is asked in the 2026-07-28 form instead.
    const asked = await call("alice", "Pager_WhoAmI", {}, { capabilities: { elicitation: { url: {} } } });
    expect(asked.isError).toBe(false);
    expect(asked.result?.resultType).toBe("input_required");
    expect(JSON.stringify(asked.result?.inputRequests)).toMatch(new RegExp(`${d.url}/connect/pager\\?code=`));

    const page = await browser({ user: "alice" }).open(link);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Connected PagerDuty as alice@example.com");

    const answers: Answer[] = [];
    do answers.push(await call("alice", "Pager_WhoAmI"));
    while (multi && answers.at(-1)?.replica === first.replica && answers.length < 4);
    for (const answer of answers) {
      expect(answer.isError, answer.text).toBe(false);
      expect(answer.data).toMatchObject({ user: { name: "Alice Example", email: "alice@example.com" } });
    }
    if (multi) expect(answers.at(-1)?.replica).not.toBe(first.replica);
    expect(d.upstreams.of("pagerduty").every((request) => request.person === "alice")).toBe(true);
  });

  it("answers Bob with his own link; Alice's link followed while signed in as Bob is refused; each sees only their own data", async () => {
    const bobs = linkIn(await call("bob", "Pager_WhoAmI"), "pager");
    const alicesGoogle = linkIn(await call("alice", "Sheets_WhoAmI"), "google");
    expect(new URL(bobs).searchParams.get("code")).not.toBe(new URL(alicesGoogle).searchParams.get("code"));

    const bob = browser({ user: "bob" });
    const refused = await bob.open(alicesGoogle);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("This link was made for someone else");
    expect(linkIn(await call("alice", "Sheets_WhoAmI"), "google")).toBeTruthy();

    expect((await bob.open(bobs)).text).toContain("Connected PagerDuty as bob@example.com");
    const [bobsIncidents, alicesIncidents] = await Promise.all([
      call("bob", "Pager_ListIncidents", {}),
      call("alice", "Pager_ListIncidents", {}),
    ]);
    const ids = (answer: Answer) =>
      ((answer.data?.incidents ?? []) as { id: string }[]).map((incident) => incident.id).sort();
    expect(ids(bobsIncidents)).toEqual(personData("bob").incidentIds);
    expect(ids(alicesIncidents)).toEqual(personData("alice").incidentIds);
    expect(JSON.stringify(bobsIncidents.result)).not.toMatch(/alice/i);

    await connectOAuth("alice", "Sheets_WhoAmI", "google", "Google");
    const sheets = await call("alice", "Sheets_WhoAmI");
    expect(sheets.isError, sheets.text).toBe(false);
    expect(JSON.stringify(sheets.data)).toContain("alice@example.com");
  });

  it("stores a marketing key through the form, checked against the App API, never through the client", async () => {
    const link = linkIn(await call("alice", "MarketingApi_ListWorkspaces"), "marketing");
    const alice = browser({ user: "alice" });
    const form = await alice.open(link);
    expect(form.status).toBe(200);
    const key = d.upstreams.marketingKey("alice");
    const checks = d.upstreams.of("marketing").length;
    const done = await alice.submit(form, { api_key: key, region: "us" });
    expect(done.status).toBe(200);
    expect(done.text).toContain("Connected Customer.io App API (US region)");
    const checked = d.upstreams.of("marketing").slice(checks);
    expect(checked.map(({ method, path, status }) => ({ method, path, status }))).toEqual([
      { method: "GET", path: "/v1/workspaces", status: 200 },
    ]);

    const workspaces = await call("alice", "MarketingApi_ListWorkspaces");
    expect(workspaces.isError, workspaces.text).toBe(false);
    expect(JSON.stringify(workspaces.data)).toContain("Alice's workspace");
    expect(JSON.stringify(workspaces.result)).not.toContain(key);
  });

  it("disconnects from /connect (revoking upstream), after which calls ask to connect again", async () => {
    const bob = browser({ user: "bob" });
    const list = await bob.open(`${d.url}/connect`);
    expect(list.status).toBe(200);
    expect(list.text).toContain("PagerDuty");
    const revocations = d.pagerAuth.revocations.length;
    const out = await bob.submit(list, {}, /\/pager\/disconnect$/);
    expect(out.status).toBe(200);
    expect(out.text).toMatch(/disconnected/i);
    await expect.poll(() => d.pagerAuth.revocations.length).toBe(revocations + 1);
    linkIn(await call("bob", "Pager_WhoAmI"), "pager");
    const alice = await call("alice", "Pager_WhoAmI");
    expect(alice.isError, alice.text).toBe(false);
  });

  it("refreshes an access token that expires while 20 calls on every replica need it exactly once", async () => {
    d.googleAuth.tokenLifetime(61); // a minute and a second: stale (within a minute of expiry) in a second
    try {
      await connectOAuth("erin", "Sheets_WhoAmI", "google", "Google");
    } finally {
      d.googleAuth.tokenLifetime(undefined);
    }
    await sleep(1_500);
    const refreshes = () =>
      d.googleAuth.tokenRequests.filter((body) => body.grant_type === "refresh_token").length;
    const before = refreshes();
    const answers = await Promise.all(spread(20).map((to) => call("erin", "Sheets_WhoAmI", {}, { to })));
    for (const answer of answers) expect(answer.isError, answer.text).toBe(false);
    expect(refreshes()).toBe(before + 1);
    const credentials = new Set(d.upstreams.of("google", "erin").map((request) => request.credential));
    expect(credentials.size).toBe(1);
    expect(d.googleAuth.issued).toContain([...credentials][0]);
  });

  it("keeps one person's PagerDuty requests within 60 per 10 s across replicas, without an upstream 429, and does not slow anyone else", async () => {
    await connectOAuth("carol", "Pager_WhoAmI", "pager", "PagerDuty");
    await connectOAuth("dave", "Pager_WhoAmI", "pager", "PagerDuty");
    const targets = spread(150);
    const carol = Promise.all(
      targets.map(async (to, index) => {
        await sleep((index * 10_000) / 150);
        return call("carol", "Pager_ListIncidents", {}, { to });
      }),
    );
    const dave = Promise.all(
      spread(10).map(async (to, index) => {
        await sleep(index * 1_000);
        return call("dave", "Pager_WhoAmI", {}, { to });
      }),
    );
    const [carols, daves] = await Promise.all([carol, dave]);

    const sent = d.upstreams.of("pagerduty", "carol");
    expect(sent.filter((request) => request.status === 429)).toEqual([]);
    const times = sent.map((request) => request.at).sort((a, b) => a - b);
    const busiest = Math.max(
      ...times.map((start) => times.filter((at) => at >= start && at < start + PAGER_LIMIT.windowMs).length),
    );
    expect(busiest).toBeLessThanOrEqual(PAGER_LIMIT.requests);
    const limited = carols.filter((answer) => answer.isError);
    expect(limited.length).toBeGreaterThan(0);
    for (const answer of limited) expect(answer.text).toMatch(/^rate_limited: .*retry/i);
    expect(carols.length - limited.length).toBe(sent.length);

    for (const answer of daves) {
      expect(answer.isError, answer.text).toBe(false);
      expect(answer.tookMs).toBeLessThan(1_000);
    }
  }, 30_000);

  if (multi)
    it("loses none of the calls sent to the other replica when one is killed during 200 concurrent calls", async () => {
      d.upstreams.delay("google", 400);
      try {
        // Each call waits 400 ms on the upstream, so the killed replica holds some when it dies.
        const calls = Array.from({ length: 200 }, () => call("alice", "Sheets_WhoAmI"));
        await sleep(200);
        d.kill(0);
        const answers = await Promise.all(calls);
        const survivor = d.replicas[1]?.name;
        const atSurvivor = answers.filter((answer) => answer.replica === survivor);
        expect(atSurvivor.length).toBeGreaterThanOrEqual(100);
        for (const answer of atSurvivor) {
          expect(answer.status).toBe(200);
          expect(answer.isError, answer.text).toBe(false);
          expect(JSON.stringify(answer.data)).toContain("alice@example.com");
        }
        // Only calls the killed replica held may have failed.
        for (const answer of answers.filter((each) => each.isError))
          expect(answer.replica).not.toBe(survivor);
      } finally {
        d.upstreams.delay("google", 0);
        await d.restart(0);
      }
    }, 60_000);

  it("holds only ciphertext: no token, key or refresh token in the Redis dump or the store file", async () => {
    const stored = d.redis ? await d.redis.dump() : await readFile(d.storeFile ?? "", "latin1");
    expect(stored.length).toBeGreaterThan(0);
    const secrets = [
      ...d.pagerAuth.issued,
      ...d.googleAuth.issued,
      ...d.upstreams.of("marketing").map((request) => request.credential),
    ].filter(Boolean);
    expect(secrets.length).toBeGreaterThan(5);
    for (const secret of secrets) {
      // A JWT's signature alone would give it away too.
      for (const part of [secret, secret.split(".").at(-1) ?? secret]) expect(stored).not.toContain(part);
    }
    expect(stored).not.toContain("alice@example.com");
  });

  it("keeps connections working when MCP_STORE_KEY is rotated", async () => {
    const previous = d.env.MCP_STORE_KEY ?? "";
    const key = randomBytes(32).toString("base64");
    for (const index of d.replicas.keys())
      await d.restart(index, { MCP_STORE_KEY: key, MCP_STORE_KEY_PREVIOUS: previous });
    const rotated = await call("alice", "Pager_WhoAmI");
    expect(rotated.isError, rotated.text).toBe(false);
    // Used once under the new key, the record was sealed again: the old key is no longer needed.
    for (const index of d.replicas.keys()) await d.restart(index, { MCP_STORE_KEY: key });
    const after = await call("alice", "Pager_WhoAmI");
    expect(after.isError, after.text).toBe(false);
    expect(after.data).toMatchObject({ user: { email: "alice@example.com" } });
  }, 60_000);

  if (layout.store === "redis")
    it("answers a clear unavailable error while Redis restarts, and recovers without a server restart", async () => {
      const pids = d.replicas.map((replica) => replica.child.pid);
      let during: Answer | undefined;
      await d.redis?.restart(async () => {
        during = await call("alice", "Pager_WhoAmI");
      });
      expect(during?.isError).toBe(true);
      expect(during?.text).toMatch(/^unavailable: /);
      expect(during?.text).toMatch(/store/i);
      let after = await call("alice", "Pager_WhoAmI");
      for (let tries = 0; after.isError && tries < 40; tries++) {
        await sleep(250);
        after = await call("alice", "Pager_WhoAmI");
      }
      expect(after.isError, after.text).toBe(false);
      expect(d.replicas.map((replica) => replica.child.pid)).toEqual(pids);
      expect(d.replicas.every((replica) => replica.child.exitCode === null)).toBe(true);
    }, 60_000);

  it("logs one audit line per tool call (person by pseudonym, tool, outcome, duration, upstream requests), and no secret or principal anywhere", async () => {
    const lines = d.replicas
      .flatMap((replica) => replica.stderr().split("\n"))
      .filter((line) => line.includes('"msg":"tool call"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toContainEqual(
      expect.objectContaining({
        principal: pseudonym(`${d.idp.url}#alice`),
        tool: expect.stringMatching(/^Pager[._]WhoAmI$/),
        outcome: "ok",
        duration_ms: expect.any(Number),
        upstream_requests: expect.any(Number),
      }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({ principal: pseudonym(`${d.idp.url}#bob`), outcome: "unauthenticated" }),
    );
    for (const line of lines) expect(JSON.stringify(line)).not.toContain(d.idp.url);
    const logs = d.replicas.map((replica) => replica.stderr()).join("\n");
    const secrets = [
      ...d.pagerAuth.issued,
      ...d.googleAuth.issued,
      ...bearers.values(),
      d.env.MCP_STORE_KEY ?? "",
      d.env.PAGER_OAUTH_CLIENT_SECRET ?? "",
      d.env.MCP_CONNECT_CLIENT_SECRET ?? "",
      ...d.upstreams.of("marketing").map((request) => request.credential),
    ].filter(Boolean);
    for (const secret of secrets) expect(logs).not.toContain(secret);
  });
});
