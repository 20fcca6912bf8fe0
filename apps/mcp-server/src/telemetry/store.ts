import type { Attributes } from "@opentelemetry/api";
import type { KeyValueStore, RateLimiter } from "../team/store/kv.js";
import { type ClientInstruments, errorTypeOf, NO_OUTCOME, startClient } from "./client.js";
import * as names from "./conventions.js";

/** The store's operations, by the names they are recorded under (`db.operation.name`). */
const OPERATIONS = {
  get: "get",
  set: "set",
  setIfAbsent: "set_if_absent",
  take: "take",
  delete: "delete",
  deleteIf: "delete_if",
  replaceIf: "replace_if",
  has: "has",
  indexAdd: "index_add",
  indexRemove: "index_remove",
  indexMembers: "index_members",
  indexCount: "index_count",
  keys: "keys",
  ready: "ready",
} as const satisfies Partial<Record<keyof KeyValueStore, string>>;

type Recorded = keyof typeof OPERATIONS;

/**
 * `store` recording each operation by the database client conventions: a CLIENT span named
 * `{db.operation.name} {db.collection.name}` (within a traced call only) and
 * `db.client.operation.duration`, with `error.type` the failure's name (`StoreUnavailable` when the
 * backend is out of reach). The collection is the key's leading name segments (`tk:conn`,
 * `tk:limit:pager`): never a hash, so never a person or a code.
 */
export function recordedStore(
  store: KeyValueStore,
  system: "redis" | "file",
  instruments: ClientInstruments,
): KeyValueStore {
  const record = <T>(operation: string, key: string | undefined, run: () => Promise<T>): Promise<T> => {
    const collection = key === undefined ? undefined : collectionOf(key);
    const attributes: Attributes = {
      [names.DB_SYSTEM_NAME]: system,
      [names.DB_OPERATION_NAME]: operation,
      ...(collection && { [names.DB_COLLECTION_NAME]: collection }),
    };
    const finish = startClient(
      instruments,
      collection ? `${operation} ${collection}` : operation,
      attributes,
    );
    return run().then(
      (value) => {
        finish(NO_OUTCOME, false);
        return value;
      },
      (error: unknown) => {
        finish({ [names.ERROR_TYPE]: errorTypeOf(error) }, true);
        throw error;
      },
    );
  };
  const wrapped: Record<string, unknown> = {
    close: () => store.close(),
    rateLimiter: (options: Parameters<KeyValueStore["rateLimiter"]>[0]): RateLimiter => {
      const limiter = store.rateLimiter(options);
      return { consume: (key) => record("consume", options.keyPrefix, () => limiter.consume(key)) };
    },
  };
  for (const [method, operation] of Object.entries(OPERATIONS) as [Recorded, string][]) {
    const original = store[method] as (...args: unknown[]) => Promise<unknown>;
    wrapped[method] = (...args: unknown[]) =>
      record(operation, typeof args[0] === "string" ? args[0] : undefined, () => original.apply(store, args));
  }
  return wrapped as unknown as KeyValueStore;
}

/** A name segment: letters and dashes, short; a hash (32 characters of base64url) never is one. */
const NAME_SEGMENT = /^[A-Za-z][A-Za-z-]{0,23}$/;

/** The key's leading name segments (`tk:as:Grant:<hash>` → `tk:as:Grant`). */
export function collectionOf(key: string): string | undefined {
  const segments: string[] = [];
  for (const segment of key.split(":")) {
    if (!NAME_SEGMENT.test(segment)) break;
    segments.push(segment);
  }
  return segments.length ? segments.join(":") : undefined;
}
