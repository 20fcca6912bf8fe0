// What the server counts besides MCP operations, where it happens: a refused step of the built-in
// authorization server (where its log line is written), a rate-limit budget's waits and refusals,
// and the labels the alert rules select on: upstream statuses and failures, the store out of reach.
import type { Histogram } from "@opentelemetry/api";
import { silentLogger } from "@toolkits/core";
import { afterEach, describe, expect, it } from "vitest";
import { logRefusal } from "../../src/team/authorize/refusals.js";
import { personLimits } from "../../src/team/limits.js";
import { StoreUnavailable, type TeamStore } from "../../src/team/store/index.js";
import type { KeyValueStore } from "../../src/team/store/kv.js";
import { setTelemetry, type Telemetry } from "../../src/telemetry/index.js";
import { recordedStore } from "../../src/telemetry/store.js";
import { recordedFetch } from "../../src/telemetry/upstream.js";

/** A telemetry that notes what it is told. */
function noting(): { telemetry: Telemetry; told: unknown[][] } {
  const told: unknown[][] = [];
  const telemetry = {
    tracing: false,
    authStep: (...args: unknown[]) => told.push(["authStep", ...args]),
    rateLimitWait: (...args: unknown[]) => told.push(["rateLimitWait", ...args]),
  } as unknown as Telemetry;
  return { telemetry, told };
}

afterEach(() => setTelemetry(undefined));

describe("authorization steps", () => {
  it("counts each refusal by its OAuth error code, else its cause; never by its free text", () => {
    const { telemetry, told } = noting();
    setTelemetry(telemetry);
    logRefusal(silentLogger, "refresh", { error: "invalid_grant", reason: "refresh token already used" });
    logRefusal(silentLogger, "sign-in", {
      reason: "the token posted is not one this server knows",
      cause: "unknown_token",
    });
    logRefusal(silentLogger, "consent", { error: "Not A Code <x@y.example>", reason: "odd" });
    expect(told).toEqual([
      ["authStep", "refresh", "refused", "invalid_grant"],
      ["authStep", "sign-in", "refused", "unknown_token"],
      ["authStep", "consent", "refused", "refused"],
    ]);
  });
});

describe("rate-limit budgets", () => {
  /** A store whose one limiter answers the waits given, in turn. */
  const storeAnswering = (waits: number[]) =>
    ({ rateLimiter: () => ({ consume: async () => waits.shift() ?? 0 }) }) as unknown as TeamStore;

  it("records a request that waited, and one refused with the wait it would have needed; not one let through at once", async () => {
    const { telemetry, told } = noting();
    setTelemetry(telemetry);
    const limits = { pager: { requests: 10, periodS: 1 } };
    await personLimits(storeAnswering([0]), limits, 1_000).take("pager", "p", undefined);
    expect(told).toEqual([]);
    await personLimits(storeAnswering([20, 0]), limits, 1_000).take("pager", "p", undefined);
    expect(told).toEqual([["rateLimitWait", "pager", expect.any(Number), false]]);
    await expect(
      personLimits(storeAnswering([5_000]), limits, 1_000).take("pager", "p", undefined),
    ).rejects.toThrow(/budget/);
    expect(told[1]).toEqual(["rateLimitWait", "pager", expect.any(Number), true]);
    expect(told[1]?.[2]).toBeGreaterThanOrEqual(5_000);
  });
});

describe("what the alerts read (deploy/alerts.yml)", () => {
  /** A histogram that notes each point's attributes. */
  const histogram = () => {
    const points: Record<string, unknown>[] = [];
    return {
      points,
      duration: { record: (_value: number, attributes = {}) => points.push(attributes) } as Histogram,
    };
  };
  const recorded = () => new Promise((resolve) => setImmediate(resolve));

  it("an upstream's 429 and 5xx by status, a request with no answer by the error's name alone", async () => {
    const { points, duration } = histogram();
    const answers = [new Response(null, { status: 429 }), new Response(null, { status: 503 })];
    const fetch = recordedFetch(
      async () => {
        const answer = answers.shift();
        if (!answer) throw new TypeError("fetch failed");
        return answer;
      },
      { duration },
    );
    const about = { target: "/incidents/{id}", template: "/incidents/{id}", resendCount: 0 };
    for (let sent = 0; sent < 3; sent++)
      await fetch("https://api.example.test/incidents/P1", { method: "GET", about }).catch(() => undefined);
    await recorded();
    expect(points).toEqual([
      expect.objectContaining({
        "http.response.status_code": 429,
        "error.type": "429",
        "url.template": "/incidents/{id}",
      }),
      expect.objectContaining({ "http.response.status_code": 503, "error.type": "503" }),
      expect.objectContaining({
        "error.type": "TypeError",
        "server.address": "api.example.test",
        "server.port": 443,
      }),
    ]);
    expect(points[2]).not.toHaveProperty("http.response.status_code");
    expect(JSON.stringify(points)).not.toContain("P1");
  });

  it("a store out of reach as error.type StoreUnavailable", async () => {
    const { points, duration } = histogram();
    const backend = {
      get: async () => {
        throw new StoreUnavailable("connection refused");
      },
    } as unknown as KeyValueStore;
    const store = recordedStore(backend, "redis", { duration });
    await expect(store.get("tk:conn:Qm9iIGlzIGEgcGVyc29uLCBub3QgYSBr:pager")).rejects.toThrow(
      StoreUnavailable,
    );
    await recorded();
    expect(points).toEqual([
      {
        "db.system.name": "redis",
        "db.operation.name": "get",
        "db.collection.name": "tk:conn",
        "error.type": "StoreUnavailable",
      },
    ]);
  });
});
