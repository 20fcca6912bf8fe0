import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { type RateLimiter, type RateLimiterOptions, StoreUnavailable } from "./kv.js";

/**
 * Our RateLimiter over one of rate-limiter-flexible's: its refusal (a rejected RateLimiterRes)
 * becomes the milliseconds until the window resets (at least 1, so 0 always means allowed); any
 * other failure is the store's, and becomes `unavailable(error)`.
 */
export function wrapLimiter(
  limiter: RateLimiterAbstract,
  unavailable: (error: unknown) => Error,
): RateLimiter {
  return {
    async consume(key) {
      try {
        await limiter.consume(key);
        return 0;
      } catch (error) {
        if (error instanceof RateLimiterRes) return Math.max(1, Math.ceil(error.msBeforeNext));
        throw unavailable(error);
      }
    },
  };
}

/**
 * Rate limiters counting in this process's memory (the file store's: one process owns the file).
 * Counters live in the limiter object, so every limiter asked for with the same options is one.
 */
export function memoryLimiters(): (options: RateLimiterOptions) => RateLimiter {
  const made = new Map<string, RateLimiter>();
  return (options) => {
    const id = JSON.stringify([options.keyPrefix, options.points, options.durationS]);
    let limiter = made.get(id);
    if (!limiter) {
      const counters = new RateLimiterMemory({
        keyPrefix: options.keyPrefix,
        points: options.points,
        duration: options.durationS,
      });
      limiter = wrapLimiter(
        counters,
        (error) => new StoreUnavailable("rate limiter failed", { cause: error }),
      );
      made.set(id, limiter);
    }
    return limiter;
  };
}
