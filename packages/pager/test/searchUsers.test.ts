import type { Progress } from "@modelcontextprotocol/client";
import { useToolkitSandbox } from "@toolkits/core/testing";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { PagerClient } from "../src/client.js";
import {
  directoryOf,
  matchAmong,
  matchDirectory,
  SCAN_CONCURRENCY,
  userDirectory,
} from "../src/directory.js";
import { cachedDirectory } from "../src/directory-cache.js";
import {
  ACCEPT_CONFIDENCE,
  ACCEPT_MARGIN,
  DIRECTORY_TTL_MS,
  forgetUserDirectories,
  type PdUser,
  pagerToolkit,
} from "../src/index.js";
import { SANDBOX_TOKEN, sandbox } from "../src/sandbox/index.js";
import { PAGER } from "./kit.js";

const pd = useToolkitSandbox(pagerToolkit, PAGER);

interface Match {
  id: string;
  name: string;
  email: string;
  confidence: number;
  accepted?: boolean;
}

const matches = (data: Record<string, unknown> | undefined) => data?.matches as Match[];
/** Directory pages (`/users` without a name query) requested since the `since`-th request of the test. */
const userPages = (since = 0) =>
  pd.requests
    .slice(since)
    .map((request) => new URL(request.url))
    .filter((url) => url.pathname === "/users" && !url.searchParams.has("query"))
    .map((url) => url.searchParams);

afterEach(() => vi.useRealTimers());

describe("Pager.SearchUsers", () => {
  it("settles an exact name with PagerDuty's name query: one request", async () => {
    const result = await pd.call("Pager.SearchUsers", { query: "Priya Keller" });
    expect(result.isError, result.text).toBe(false);
    expect(result.data).toMatchObject({ searched: "name query", users_searched: 1 });
    expect(matches(result.data)).toEqual([
      expect.objectContaining({
        id: "PU00002",
        name: "Priya Keller",
        confidence: 1,
        email: "priya.keller@acme.example",
      }),
    ]);
    expect(matches(result.data)[0]).not.toHaveProperty("accepted");
    expect(pd.queries("/users").map((q) => q.toString())).toEqual([
      "query=Priya+Keller&limit=100&offset=0&include%5B%5D=teams",
    ]);
  });

  it("auto-accepts a confident match that is clearly ahead, returning it alone", async () => {
    const result = await pd.call("Pager.SearchUsers", { query: "priya keller", auto_accept_matches: true });
    expect(matches(result.data)).toEqual([
      expect.objectContaining({ id: "PU00002", accepted: true, confidence: 1 }),
    ]);
  });

  it("finds a misspelt name by scanning the directory, without accepting a weak match", async () => {
    const result = await pd.call("Pager.SearchUsers", { query: "Avrey Quinn", auto_accept_matches: true });
    expect(result.data).toMatchObject({
      searched: "directory",
      users_searched: pd.sandbox.account.users.length,
    });
    const [best] = matches(result.data);
    expect(best).toMatchObject({ id: pd.sandbox.account.me.id, accepted: false });
    expect(best?.confidence).toBeLessThan(ACCEPT_CONFIDENCE);
    expect(matches(result.data).every((match) => match.accepted === false)).toBe(true);
    expect(result.data?.note).toBe(
      `No match accepted: it needs confidence >= ${ACCEPT_CONFIDENCE} and a lead of ${ACCEPT_MARGIN} over the runner-up.`,
    );
    expect(pd.queries("/users")[0]?.get("query")).toBe("Avrey Quinn");
    expect(userPages().map((q) => q.toString())).toEqual([
      "limit=100&offset=0&total=true&include%5B%5D=teams",
    ]);
  });

  it("matches an email in the directory, skipping the name query that cannot see emails", async () => {
    const result = await pd.call("Pager.SearchUsers", {
      query: "jordan.costa@acme.example",
      auto_accept_matches: true,
    });
    expect(matches(result.data)).toEqual([expect.objectContaining({ id: "PU00001", accepted: true })]);
    expect(pd.queries("/users").some((q) => q.has("query"))).toBe(false);
  });

  it("returns every close candidate, none accepted, when two people share a name", async () => {
    await pd.reset(sandbox({ users: 200 }));
    const result = await pd.call("Pager.SearchUsers", { query: "Priya", auto_accept_matches: true });
    const found = matches(result.data);
    expect(found.map((match) => match.name)).toEqual(["Priya Keller", "Priya Boateng"]);
    expect(found.map((match) => match.accepted)).toEqual([false, false]);
  });

  it("says so when nobody matches", async () => {
    const result = await pd.call("Pager.SearchUsers", { query: "Zebediah Xylophone" });
    expect(result.data).toMatchObject({ matches: [], note: expect.stringContaining("No user matches") });
  });

  it("refuses an empty query before sending anything", async () => {
    const result = await pd.call("Pager.SearchUsers", { query: "   " });
    expect(result.text).toMatch(/^invalid_input: .*query: /);
    expect(pd.requests).toEqual([]);
  });
});

describe("Pager.SearchUsers directory cache", () => {
  it("reuses a scanned directory for the same credential, sending nothing", async () => {
    await pd.call("Pager.SearchUsers", { query: "Avrey Quinn" });
    const scanned = pd.requests.length;
    const again = await pd.call("Pager.SearchUsers", { query: "Kofi Achampong" });
    expect(matches(again.data)[0]).toMatchObject({ name: "Kofi Acheampong" });
    expect(again.data?.searched).toBe("directory");
    expect(pd.requests.slice(scanned)).toEqual([]);
  });

  it("settles an exact name in a cached directory as the full fuzzy search would", async () => {
    await pd.call("Pager.SearchUsers", { query: "Avrey Quinn" });
    const exact = await pd.call("Pager.SearchUsers", { query: "jordan costa" });
    const fuzzy = await pd.call("Pager.SearchUsers", { query: "jordan costaa" });
    expect(exact.data?.searched).toBe("directory");
    expect(matches(exact.data)[0]).toMatchObject({ id: "PU00001", confidence: 1 });
    expect(matches(fuzzy.data)[0]).toMatchObject({ id: "PU00001" });
  });

  it("keeps directories apart per credential", async () => {
    await pd.call("Pager.SearchUsers", { query: "Avrey Quinn" });
    const scanned = pd.requests.length;
    await pd.call("Pager.SearchUsers", { query: "Avrey Quinn" }, { PAGER_API_TOKEN: SANDBOX_TOKEN });
    expect(userPages(scanned)).toHaveLength(1);
  });

  it("scans again once the cache has expired or was forgotten", async () => {
    await pd.call("Pager.SearchUsers", { query: "Avrey Quinn" });
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + DIRECTORY_TTL_MS + 1);
    const expired = pd.requests.length;
    await pd.call("Pager.SearchUsers", { query: "Avrey Quinn" });
    expect(userPages(expired)).toHaveLength(1);
    vi.useRealTimers();
    forgetUserDirectories();
    const forgotten = pd.requests.length;
    await pd.call("Pager.SearchUsers", { query: "Avrey Quinn" });
    expect(userPages(forgotten)).toHaveLength(1);
  });
});

describe("the directory cache", () => {
  const stub = (key: string) =>
    ({
      credentialKey: key,
      users: async () => ({ items: [], limit: 100, offset: 0, more: false }),
    }) as unknown as PagerClient;

  it("holds up to 16 credentials' directories, dropping the oldest first", async () => {
    const clients = Array.from({ length: 17 }, (_, i) => stub(`key-${i}`));
    for (const client of clients.slice(0, 10)) await userDirectory(client, () => {});
    expect(clients.slice(0, 10).every((client) => cachedDirectory(client))).toBe(true);
    for (const client of clients.slice(10)) await userDirectory(client, () => {});
    expect(cachedDirectory(clients[0] as PagerClient)).toBeUndefined();
    expect(clients.slice(1).every((client) => cachedDirectory(client))).toBe(true);
  });
});

describe("Pager.SearchUsers on a directory past PagerDuty's 10,000 ceiling", () => {
  it("scans pages of 100 concurrently up to offset + limit 10,000, reports progress and says it was cut short", async () => {
    await pd.reset(sandbox({ users: 10_250, latencyMs: 2 }));
    let inFlight = 0;
    let mostInFlight = 0;
    pd.server.events.on("request:start", () => {
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
    });
    pd.server.events.on("response:mocked", () => {
      inFlight--;
    });
    const updates: Progress[] = [];
    const client = await pd.connect();
    const result = await client.call(
      "Pager.SearchUsers",
      { query: "Priya Kelr" },
      { onprogress: (update) => updates.push(update) },
    );
    pd.server.events.removeAllListeners("response:mocked");
    const data = result.data ?? {};
    expect(matches(data)[0]).toMatchObject({ name: "Priya Keller" });
    expect(data.users_searched).toBe(10_000);
    expect(data.note).toMatch(/^Only the first 10000 users were searched/);
    const offsets = userPages().map((q) => Number(q.get("offset")));
    expect(offsets.sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i * 100));
    expect(userPages().every((q) => q.get("limit") === "100")).toBe(true);
    expect(mostInFlight).toBeGreaterThan(1);
    expect(mostInFlight).toBeLessThanOrEqual(SCAN_CONCURRENCY);
    expect(updates.length).toBeGreaterThan(10);
    expect(updates.map((u) => u.progress)).toEqual([...updates.map((u) => u.progress)].sort((a, b) => a - b));
    expect(updates.at(-1)).toMatchObject({
      progress: 10_000,
      total: 10_000,
      message: "Scanned 10000 of 10000 users",
    });
  });
});

describe("the warm directory search", () => {
  // Few enough users that most queries match fewer than the 10 returned, so a user wrongly ruled
  // out would show; some with letters beyond ASCII, whose lower case can differ in length.
  const users: PdUser[] = [
    ...sandbox({ users: 300 }).account.users,
    ...["Zoë Ødegård", "İlkay Gündoğan", "ΟΔΥΣΣΕΑΣ Παπαδόπουλος", "Łukasz Żółw"].map((name, i) => ({
      id: `PX0000${i}`,
      type: "user",
      name,
      email: `${name.toLowerCase().replace(/ /g, ".")}@acme.example`,
    })),
  ];
  const directory = directoryOf(users, true);
  type Edit = [at: number, kind: "drop" | "swap" | "insert" | "replace", char: string];
  const applyEdit = (text: string, [at, kind, char]: Edit): string => {
    const i = at % Math.max(1, text.length);
    const [head, tail] = [text.slice(0, i), text.slice(i)];
    if (kind === "drop") return head + tail.slice(1);
    if (kind === "swap") return head + tail.slice(1, 2) + tail.slice(0, 1) + tail.slice(2);
    return head + char + (kind === "insert" ? tail : tail.slice(1));
  };
  const edit = fc.tuple(
    fc.nat(),
    fc.constantFrom("drop", "swap", "insert", "replace"),
    fc.string({ unit: "grapheme-composite", minLength: 1, maxLength: 1 }),
  );
  // Names, emails, and both together: past 32 characters Fuse matches the query in chunks.
  const misspelt = fc
    .tuple(
      fc
        .constantFrom(...users)
        .chain((user) => fc.constantFrom(user.name, user.email, `${user.name} ${user.email}`)),
      fc.array(edit, { minLength: 1, maxLength: 4 }),
    )
    .map(([text, edits]) => edits.reduce(applyEdit, text));
  const query = fc.oneof(misspelt, fc.string({ unit: "grapheme", minLength: 1, maxLength: 70 }));

  it("finds the users Fuse finds over the whole directory, in the same order and with the same confidences", () => {
    fc.assert(
      fc.property(query, (text) => {
        expect(matchDirectory(directory, text)).toEqual(matchAmong(users, text));
      }),
      { numRuns: 300 },
    );
  });

  it("finds a misspelt name, an accented name and a misspelt email", () => {
    const best = (text: string) => matchDirectory(directory, text)[0]?.user.name;
    expect(best("Avrey Quinn")).toBe("Avery Quinn");
    expect(best("zoë ødegard")).toBe("Zoë Ødegård");
    expect(best("priya.kelle@acme.example")).toBe("Priya Keller");
  });
});
