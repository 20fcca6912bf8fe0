import { type RateLimiterAbstract, RateLimiterRes } from "rate-limiter-flexible";
import type { RateLimiter } from "./kv.js";

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
