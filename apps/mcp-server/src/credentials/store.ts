import { ToolError } from "@toolkits/core";
import { StoreUnavailable } from "../team/store/kv.js";
import type { GrantOf } from "./grant.js";
import type { ProviderId } from "./providers.js";

/** Frees a lock; safe to call after the lock expired (it never frees a later holder's). */
export type Release = () => Promise<void>;

/**
 * Where grants live: the `login` token file (one person) or the sealed team store (one store per
 * person). Methods reject with StoreUnavailable when a shared store is out of reach, and with a
 * ToolError `unauthenticated` naming the file when the token file cannot be read.
 */
export interface GrantStore<P extends ProviderId = ProviderId> {
  /** Names these grants within this process (the file, the person), so refreshes can be shared. */
  readonly id: string;
  get<Q extends P>(provider: Q): Promise<GrantOf<Q> | undefined>;
  /** Stores (or replaces) the grant of its provider. */
  save(grant: GrantOf<P>): Promise<void>;
  /** Removes the provider's grant and returns it, so the caller can revoke it upstream. */
  remove<Q extends P>(provider: Q): Promise<GrantOf<Q> | undefined>;
  /**
   * Takes the lock on refreshing the provider's grant, across every process using this store, for
   * at most `ttlMs` milliseconds (a crashed holder frees it then). Resolves to its release, or
   * `undefined` when another holder has it.
   */
  lock(provider: P, ttlMs: number): Promise<Release | undefined>;
}

/**
 * Runs a store operation, turning an unreachable store into the error a caller should see.
 * @throws ToolError `unavailable` when the store is out of reach.
 */
export async function available<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (!(error instanceof StoreUnavailable)) throw error;
    throw new ToolError("unavailable", `${error.message} Retry in a few seconds.`, { cause: error });
  }
}
