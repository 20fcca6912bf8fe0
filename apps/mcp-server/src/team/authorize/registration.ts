import type { Logger } from "@toolkits/core";
import type { TeamStore } from "../store/index.js";
import { CLIENTS_INDEX } from "./adapter.js";
import { logRefusal } from "./refusals.js";

/** How much dynamic registration is taken. */
export interface RegistrationLimits {
  /** Registrations per address per hour. */
  perHour: number;
  /** Registered clients kept at most (unused ones expire after 90 days: see adapter.ts). */
  max: number;
}

export const REGISTRATION_LIMITS: RegistrationLimits = { perHour: 10, max: 10_000 };
/** The share of `max` past which every registration warns the operator. */
const WARN_SHARE = 0.8;

/** A refused registration: the status, the OAuth error body, and when to try again (seconds). */
export interface RegistrationRefusal {
  status: 429 | 503;
  body: { error: string; error_description: string };
  retryAfterS: number;
}

/**
 * Bounds dynamic registration, the endpoint anyone may write to: so many registrations per address
 * an hour (counted in the store, so across replicas), and so many registered clients in all
 * (counted in their index, never by walking the store). Clients identified by a metadata document
 * never register, so the cap never stands in their way. Past 80 % of the cap each registration
 * logs a warning; each refusal logs one line (see refusals.ts).
 * Resolves to the refusal of a registration from `address`, or undefined to take it.
 * @throws StoreUnavailable when the store is out of reach.
 */
export function registrationGate(
  store: TeamStore,
  logger: Logger,
  limits: RegistrationLimits = REGISTRATION_LIMITS,
): (address: string) => Promise<RegistrationRefusal | undefined> {
  const perAddress = store.rateLimiter({
    keyPrefix: "tk:as:register",
    points: limits.perHour,
    durationS: 3_600,
  });
  const registered = store.index(CLIENTS_INDEX);
  const refuse = (refusal: RegistrationRefusal) => {
    logRefusal(logger, "registration", { error: refusal.body.error, reason: refusal.body.error_description });
    return refusal;
  };
  return async (address) => {
    const waitMs = await perAddress.consume(address);
    if (waitMs > 0) {
      const error_description = "Too many registrations from this address; try again later.";
      return refuse({
        status: 429,
        body: { error: "invalid_request", error_description },
        retryAfterS: Math.ceil(waitMs / 1000),
      });
    }
    const count = await registered.count();
    if (count >= limits.max * WARN_SHARE && count < limits.max)
      logger.warn("registered clients are nearing the cap: new registrations will be refused at the cap", {
        registered: count,
        cap: limits.max,
      });
    if (count < limits.max) return undefined;
    const error_description = `This server keeps at most ${limits.max} registered clients; unused ones expire after 90 days.`;
    return refuse({
      status: 503,
      body: { error: "temporarily_unavailable", error_description },
      retryAfterS: 3_600,
    });
  };
}
