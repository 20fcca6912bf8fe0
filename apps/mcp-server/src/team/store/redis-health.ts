import type { Logger } from "@toolkits/core";
import { ErrorReply } from "redis";
import { StoreUnavailable } from "./kv.js";

/**
 * The connection's state as operations see it, and its log lines: a drop or a silence is logged
 * once (a warning), and so is the recovery (info).
 */
export function connectionHealth(where: string, logger: Logger) {
  let state: "connecting" | "up" | "silent" | "down" | "closed" = "connecting";
  let lastError: unknown;
  const health = {
    get lastError() {
      return lastError;
    },
    /** Throws what an operation should reject with now, if anything. */
    check(ready: boolean) {
      if (state === "closed") throw new Error(`The store ${where} is closed.`);
      // Nothing is sent while Redis is silent: a quiet connection is what lets it time out.
      if (state === "silent") throw new StoreUnavailable(`${where} is not answering`, { cause: lastError });
      if (!ready) throw new StoreUnavailable(`${where} is not connected`, { cause: lastError });
    },
    /** The connection failed (node-redis reconnects by itself). */
    dropped(error: unknown) {
      lastError = error;
      if (state === "up")
        logger.warn("The credential store's Redis connection dropped; reconnecting.", {
          store: where,
          reason: reason(error),
        });
      if (state === "up" || state === "silent") state = "down";
    },
    /** Redis answered: the first connection, a reconnection, or a reply it had been keeping. */
    answered() {
      if (state === "down" || state === "silent")
        logger.info("The credential store's Redis connection is back.", { store: where });
      if (state !== "closed") state = "up";
    },
    /** `reply` missed its deadline of `timeoutMs`: the error for its caller. */
    silent(reply: Promise<unknown>, timeoutMs: number): StoreUnavailable {
      const error = new StoreUnavailable(`${where} did not answer within ${timeoutMs} ms`);
      if (state !== "up") return error;
      state = "silent";
      lastError = error;
      logger.warn("The credential store's Redis stopped answering; calls fail until it answers again.", {
        store: where,
        waited_ms: timeoutMs,
      });
      // Redis answers in order: once this reply comes, it answers again.
      reply.then(
        () => health.answered(),
        (failure: unknown) => failure instanceof ErrorReply && health.answered(),
      );
      return error;
    },
    /** Marks the store closed; returns the state it was in. */
    close() {
      const was = state;
      state = "closed";
      return was;
    },
  };
  return health;
}

/** A short reason for logs and errors: an error code or class and message, never a value. */
export function reason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { code } = error as NodeJS.ErrnoException;
  return code ?? `${error.name}: ${error.message}`;
}
