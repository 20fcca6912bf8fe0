import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectHttp, GENERATIONS, type TestClient } from "./clients.js";
import { type RunningServer, startHttpServer } from "./spawn.js";

// A log collector reads the server's stderr one JSON object a line; anything else on it (a warning
// Node prints itself) is a line it cannot parse.

let server: RunningServer;
const clients: TestClient[] = [];
beforeAll(async () => {
  server = await startHttpServer(["--sandbox", "--toolkits", "pager", "--log-level", "info"]);
  for (const generation of GENERATIONS) clients.push(await connectHttp(generation, server.url));
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await server?.stop();
});

describe("stderr under load", () => {
  it("holds only JSON lines after 50 concurrent tools/call requests, through to the shutdown", async () => {
    // Both revisions, and calls asking for progress, which the SDK's handler answers.
    const calls = Array.from({ length: 50 }, (_, index) => {
      const client = clients[index % clients.length] as TestClient;
      const progress = index % 4 < 2 ? {} : { onprogress: () => {} };
      return client.call("Pager_ListIncidents", { limit: 5 }, progress);
    });
    const results = await Promise.all(calls);
    expect(results.filter((result) => result.isError)).toEqual([]);
    expect(await server.stop()).toBe(0);
    const lines = server.stderr().split("\n").filter(Boolean);
    const notJson = lines.filter((line) => {
      try {
        return typeof JSON.parse(line) !== "object";
      } catch {
        return true;
      }
    });
    expect(notJson).toEqual([]);
    // The lines the server did write are there: it started, and it shut down.
    expect(lines.map((line) => JSON.parse(line).msg)).toEqual(
      expect.arrayContaining(["serving Streamable HTTP", "shutting down: finishing in-flight requests"]),
    );
  });
});
