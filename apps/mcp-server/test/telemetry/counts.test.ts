// What the server counts besides MCP operations, where it happens: a refused step of the built-in
// authorization server (where its log line is written), and a rate-limit budget's waits and refusals.
import { silentLogger } from "@toolkits/core";
import { afterEach, describe, expect, it } from "vitest";
import { logRefusal } from "../../src/team/authorize/refusals.js";
import { personLimits } from "../../src/team/limits.js";
import type { TeamStore } from "../../src/team/store/index.js";
import { setTelemetry, type Telemetry } from "../../src/telemetry/index.js";

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
