import { setTimeout as sleep } from "node:timers/promises";
import { ToolError } from "@toolkits/core";
import { StoreUnavailable } from "../team/store/kv.js";
import type { GrantOf } from "./grant.js";
import type { ProviderId } from "./providers.js";

/** Frees a lock; safe to call after the lock expired (it never frees a later holder's). */
export type Release = () => Promise<void>;

/** How long one holder may keep an account's refresh lock, in milliseconds; a crashed holder frees it after this. */
export const REFRESH_LOCK_MS = 30_000;
/** How often a caller waiting for a lock held elsewhere (a refresh's, the accounts') tries again, in milliseconds. */
export const LOCK_POLL_MS = 100;

/**
 * Where grants live: the `login` token file (one person) or the sealed team store (one store per
 * person). A person may hold several accounts at one provider, each under its label (see
 * labels.ts), one of them the provider's default: the first connected, until another is made
 * default or it is removed (then the earliest connected of the rest). Methods reject with
 * StoreUnavailable when a shared store is out of reach, and with a ToolError `unauthenticated`
 * naming the file when the token file cannot be read.
 */
export interface GrantStore<P extends ProviderId = ProviderId> {
  /** Names these grants within this process (the file, the person), so refreshes can be shared. */
  readonly id: string;
  /**
   * The account labelled `label` at `provider`, or the provider's default account when `label` is
   * undefined; `undefined` when there is no such account (never another account instead).
   */
  get<Q extends P>(provider: Q, label?: string): Promise<GrantOf<Q> | undefined>;
  /** Every account at `provider`, the default first, each with its label. */
  list<Q extends P>(provider: Q): Promise<GrantOf<Q>[]>;
  /**
   * Stores (or replaces) the grant under its label; a grant without a label is named from its
   * account (labels.ts `labelFor`: the same account keeps its label). The first account of a
   * provider becomes its default. Resolves to the label it was saved under.
   */
  save(grant: GrantOf<P>): Promise<string>;
  /**
   * Removes one account (the default when `label` is undefined) and returns it, so the caller can
   * revoke it upstream; the others stay. It waits for a refresh of that account under way to end
   * (see `whileNotRefreshing`), so the refresh cannot save the account back, and what it returns
   * holds the latest tokens.
   */
  remove<Q extends P>(provider: Q, label?: string): Promise<GrantOf<Q> | undefined>;
  /**
   * Gives the account labelled `label` the label `to`, in one change (a default stays the
   * default), once a refresh of it under way is saved (see `whileNotRefreshing`). False when
   * there is no such account, or another account holds `to`.
   */
  rename(provider: P, label: string, to: string): Promise<boolean>;
  /** Makes the account labelled `label` the provider's default; false when there is no such account. */
  makeDefault(provider: P, label: string): Promise<boolean>;
  /**
   * Takes the lock on refreshing one account's grant, across every process using this store, for
   * at most `ttlMs` milliseconds (a crashed holder frees it then). Resolves to its release, or
   * `undefined` when another holder has it.
   */
  lock(provider: P, label: string, ttlMs: number): Promise<Release | undefined>;
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

/**
 * Runs `change` holding one account's refresh lock (`take`: the store's `lock` for it), first
 * waiting for a refresh under way to end: a refresh reads, renews and saves the account under that
 * lock, so nothing `change` does is undone by it. Polls every LOCK_POLL_MS; a lock left by a
 * crashed holder expires within REFRESH_LOCK_MS.
 * @throws ToolError `unavailable` when the lock is still held after that; StoreUnavailable as the store's.
 */
export const whileNotRefreshing = <T>(
  take: () => Promise<Release | undefined>,
  change: () => Promise<T>,
): Promise<T> => whileHeld(take, change, REFRESH_LOCK_MS);

/**
 * Runs `change` holding the lock `take` takes, waiting for another holder for at most `waitMs`
 * (polling every LOCK_POLL_MS).
 * @throws ToolError `unavailable` when the lock is still held after that; StoreUnavailable as the store's.
 */
export async function whileHeld<T>(
  take: () => Promise<Release | undefined>,
  change: () => Promise<T>,
  waitMs: number,
): Promise<T> {
  const deadline = Date.now() + waitMs + LOCK_POLL_MS;
  for (;;) {
    const release = await take();
    if (release) {
      try {
        return await change();
      } finally {
        // A release that fails leaves the lock to expire on its own: the change is made.
        await release().catch(() => {});
      }
    }
    if (Date.now() > deadline)
      throw new ToolError("unavailable", "Another change to this account is taking too long; retry shortly.");
    await sleep(LOCK_POLL_MS);
  }
}
