import type { TeamStore } from "../store/index.js";
import { AS_PREFIX } from "./adapter.js";

/** How much dynamic registration is taken. */
export interface RegistrationLimits {
  /** Registrations per address per hour. */
  perHour: number;
  /** Registered clients kept at most (unused ones expire after 90 days: see adapter.ts). */
  max: number;
}

export const REGISTRATION_LIMITS: RegistrationLimits = { perHour: 10, max: 10_000 };

/** A refused registration: the status, the OAuth error body, and when to try again (seconds). */
export interface RegistrationRefusal {
  status: 429 | 503;
  body: { error: string; error_description: string };
  retryAfterS: number;
}

/**
 * Bounds dynamic registration, the endpoint anyone may write to: so many registrations per address
 * an hour (counted in the store, so across replicas), and so many clients in all.
 * Resolves to the refusal of a registration from `address`, or undefined to take it.
 * @throws StoreUnavailable when the store is out of reach.
 */
export function registrationGate(
  store: TeamStore,
  limits: RegistrationLimits = REGISTRATION_LIMITS,
): (address: string) => Promise<RegistrationRefusal | undefined> {
  const perAddress = store.rateLimiter({
    keyPrefix: "as:register",
    points: limits.perHour,
    durationS: 3_600,
  });
  return async (address) => {
    const waitMs = await perAddress.consume(address);
    if (waitMs > 0) {
      const error_description = "Too many registrations from this address; try again later.";
      return {
        status: 429,
        body: { error: "invalid_request", error_description },
        retryAfterS: Math.ceil(waitMs / 1000),
      };
    }
    if ((await store.keys(`${AS_PREFIX}Client:`)).length < limits.max) return undefined;
    const error_description = `This server keeps at most ${limits.max} registered clients; unused ones expire after 90 days.`;
    return { status: 503, body: { error: "temporarily_unavailable", error_description }, retryAfterS: 3_600 };
  };
}
