import type { Logger } from "@toolkits/core";
import { tokenPrincipal } from "../http/auth/config.js";
import { PEOPLE_INDEX, pseudonymOf, readPerson } from "./people.js";
import { hashKey, type TeamStore } from "./store/index.js";

/** The names of the named static tokens as the last start saw them (sealed: they name people). */
const NAMES = "tk:token-names";
/** How long one replica may take ending the grants of removed names, in milliseconds. */
const SWEEP_LOCK_MS = 60_000;

/**
 * Ends the grants of the people whose named static tokens were removed from
 * `MCP_HTTP_BEARER_TOKENS` since the last start (`end`, as the identity provider's refusal does),
 * then remembers `names`. The first start of a version keeping the names finds them in the list of
 * people instead (one walk of that index). One replica does it; the others start meanwhile.
 * @throws StoreUnavailable
 */
export async function endRemovedNames(
  store: TeamStore,
  names: readonly string[],
  end: (principal: string) => Promise<unknown>,
  logger: Logger,
): Promise<void> {
  const release = await store.tryLock(`${NAMES}:lock`, SWEEP_LOCK_MS);
  if (!release) return;
  try {
    const known = await store.get<string[]>(NAMES);
    const current = new Set(names.map(tokenPrincipal));
    const before = known ? known.map(tokenPrincipal) : await tokenPeople(store);
    const removed = before.filter((principal) => !current.has(principal));
    for (const principal of removed) await end(principal);
    await store.set(NAMES, [...names]);
    if (removed.length)
      logger.info("ended the grants of people whose named tokens were removed", {
        principals: removed.map((principal) => pseudonymOf(hashKey(principal))),
      });
  } finally {
    await release().catch(() => {});
  }
}

/** The people in the list who sign in with a named token. */
async function tokenPeople(store: TeamStore): Promise<string[]> {
  const hashes = await store.index(PEOPLE_INDEX).members();
  const people = await Promise.all(hashes.map((hash) => readPerson(store, hash)));
  return people.flatMap(({ principal }) => (principal?.startsWith("token:") ? [principal] : []));
}
