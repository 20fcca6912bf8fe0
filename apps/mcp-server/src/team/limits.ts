import { type RateBudget, ToolError } from "@toolkits/core";
import { telemetry } from "../telemetry/index.js";
import { TOOLKITS } from "../toolkits.js";
import type { RateLimiter, TeamStore } from "./store/index.js";

/** A budget's name, as its toolkit declares it (`pager`, `sheets-read`, …). */
export type Budget = string;

/** A budget: at most `requests` per `periodS` seconds. */
export interface RateLimit {
  requests: number;
  periodS: number;
}

/** Every budget the toolkits declare (`Toolkit.upstreams`), in toolkit order. */
const DECLARED: readonly RateBudget[] = Object.values(TOOLKITS).flatMap(
  (kit) => kit.upstreams?.flatMap((api) => api.budgets) ?? [],
);

/** The budgets' names: `pager`, `sheets-read`, `sheets-write`, `marketing`. */
export const BUDGETS: readonly Budget[] = DECLARED.map((budget) => budget.name);

/**
 * The upstreams' documented limits, as the toolkits declare them: PagerDuty 960 requests a minute
 * per user, Google Sheets 60 reads and 60 writes a minute per user, the Customer.io App API 10
 * requests a second per key.
 */
export const DEFAULT_RATE_LIMITS: Readonly<Record<Budget, RateLimit>> = Object.fromEntries(
  DECLARED.map(({ name, requests, periodS }) => [name, { requests, periodS }]),
);

export const DEFAULT_RATE_LIMIT_SPEC = DECLARED.map(
  ({ name, requests, periodS }) => `${name}=${requests}/${periodS}s`,
).join(",");

/**
 * Parses `pager=960/60s,sheets-read=60/60s,…` (any subset; the rest keep their defaults).
 * @throws Error naming the bad entry and the allowed form.
 */
export function parseRateLimits(spec: string): Record<Budget, RateLimit> {
  const limits = { ...DEFAULT_RATE_LIMITS };
  for (const entry of spec
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)) {
    const match = /^([a-z-]+)=(\d+)\/(\d+)s$/.exec(entry);
    const budget = match?.[1] as Budget | undefined;
    if (!match || !budget || !BUDGETS.includes(budget) || Number(match[2]) < 1 || Number(match[3]) < 1) {
      throw new Error(
        `Rate limit "${entry}" is not <budget>=<requests>/<seconds>s with budget one of ${BUDGETS.join(", ")} (e.g. pager=960/60s).`,
      );
    }
    limits[budget] = { requests: Number(match[2]), periodS: Number(match[3]) };
  }
  return limits;
}

/**
 * The store's limiters count in fixed windows, which would let twice the budget through across a
 * window boundary. Counting in windows of about a tenth of the period (whole seconds), each
 * allowing 1/(k+1) of the budget when k windows make a period, no stretch of one period, wherever
 * it starts, touches more than k+1 windows, so none sees more than the budget.
 */
export function windowsFor(limit: RateLimit): { points: number; durationS: number } {
  const durationS = Math.max(1, Math.floor(limit.periodS / 10));
  const windows = Math.ceil(limit.periodS / durationS);
  return { points: Math.max(1, Math.floor(limit.requests / (windows + 1))), durationS };
}

/** Per-person budgets over the store, shared by every replica. */
export interface PersonLimits {
  /**
   * Waits until `key` (a person, or a marketing key's hash; the store hashes it again before it
   * keeps it) may send one more request against `budget`,
   * for at most `maxWaitMs`; aborted by `signal`.
   * @throws ToolError `rate_limited` with the wait when the budget does not allow it in time.
   */
  take(budget: Budget, key: string, signal: AbortSignal | undefined): Promise<void>;
}

/** Budgets from `limits`, waiting at most `maxWaitMs` milliseconds before answering rate_limited. */
export function personLimits(
  store: TeamStore,
  limits: Readonly<Record<Budget, RateLimit>>,
  maxWaitMs: number,
): PersonLimits {
  const budgets = new Map<Budget, { limit: RateLimit; limiter: RateLimiter }>(
    Object.entries(limits).map(([budget, limit]) => [
      budget,
      { limit, limiter: store.rateLimiter({ keyPrefix: `tk:limit:${budget}`, ...windowsFor(limit) }) },
    ]),
  );
  return {
    async take(budget, key, signal) {
      const counted = budgets.get(budget);
      if (!counted) return;
      const started = Date.now();
      const deadline = started + maxWaitMs;
      let slept = false;
      for (;;) {
        const waitMs = await counted.limiter.consume(key);
        if (waitMs === 0) {
          // Only a request that waited is recorded: most pass at once.
          if (slept) telemetry()?.rateLimitWait(budget, Date.now() - started, false);
          return;
        }
        if (Date.now() + waitMs > deadline) {
          // Refused: recorded with the whole wait it would have needed.
          telemetry()?.rateLimitWait(budget, Date.now() - started + waitMs, true);
          throw overBudget(budget, counted.limit, waitMs);
        }
        await sleep(waitMs, signal);
        slept = true;
      }
    },
  };
}

function overBudget(budget: Budget, limit: RateLimit, waitMs: number): ToolError {
  return new ToolError(
    "rate_limited",
    `Your ${budget} request budget (${limit.requests} per ${limit.periodS} s, the upstream's own limit) is used up for now.`,
    { retryAfterMs: waitMs },
  );
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
