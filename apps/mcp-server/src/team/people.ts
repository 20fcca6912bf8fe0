import type { Logger } from "@toolkits/core";
import { PROVIDER_IDS, type ProviderId } from "../credentials/providers.js";
import { pseudonymOf } from "./store/hash.js";
import { hashKey, type TeamStore } from "./store/index.js";

/**
 * Everyone the server has met, for `toolkits-mcp admin people`: the index of people (members: the
 * hashes of their principals), a sealed record of who each is (`tk:person:<hash>`), and their last
 * tool call and each connection's last use, written from the call path at most once a minute per
 * person (and per connection) on each replica, so those times are to the minute.
 */
export const PEOPLE_INDEX = "tk:people";
/** A person unseen for this long drops out of the list, in milliseconds (a year, as long as a grant lives). */
export const PERSON_TTL_MS = 365 * 24 * 3_600_000;
/** The call path writes a person's last call, and each connection's last use, at most this often (per replica). */
export const ACTIVITY_EVERY_MS = 60_000;
/** How many people's last writes a replica remembers before forgetting those older than a minute. */
const MAX_REMEMBERED = 10_000;

/** Who a person is, as their latest sign-in at /connect said (`tk:person:<hash>`). */
export interface PersonRecord {
  principal: string;
  /** An email or a token's name, for people reading the list. */
  display?: string;
  /** Epoch milliseconds of their latest sign-in at /connect. */
  signedInAt?: number;
}

/** When something last happened, and who to (`tk:person:<hash>:call`, `…:use:<provider>`). */
interface Moment {
  principal: string;
  /** Epoch milliseconds, to the minute. */
  at: number;
}

export const personKey = (hash: string): string => `tk:person:${hash}`;
const callKey = (hash: string) => `${personKey(hash)}:call`;
const useKey = (hash: string, provider: ProviderId) => `${personKey(hash)}:use:${provider}`;

export { pseudonymOf };

/** Records who signed in at /connect, and adds them to the index of people. @throws StoreUnavailable */
export async function rememberSignIn(store: TeamStore, principal: string, display: string): Promise<void> {
  const hash = hashKey(principal);
  const record: PersonRecord = { principal, display, signedInAt: Date.now() };
  await store.set(personKey(hash), record, PERSON_TTL_MS);
  await store.index(PEOPLE_INDEX).add(hash, PERSON_TTL_MS);
}

/** What the call path tells about people: a tool call, a connection handed to a tool. */
export interface Activity {
  called(principal: string): void;
  used(principal: string, provider: ProviderId): void;
}

/**
 * Records activity in `store` without slowing calls down: each kind (a person's call, one of their
 * connections' use) is written at most once every ACTIVITY_EVERY_MS per replica, in the background;
 * a failed write is logged at debug and tried again a minute later.
 */
export function personActivity(store: TeamStore, logger: Logger, now: () => number = Date.now): Activity {
  const written = new Map<string, number>();
  const due = (slot: string): boolean => {
    const at = now();
    const last = written.get(slot);
    if (last !== undefined && at - last < ACTIVITY_EVERY_MS) return false;
    if (written.size >= MAX_REMEMBERED)
      for (const [key, when] of written) if (at - when >= ACTIVITY_EVERY_MS) written.delete(key);
    written.set(slot, at);
    return true;
  };
  const write = (work: () => Promise<unknown>) =>
    void work().catch((error: unknown) =>
      logger.debug("could not record a person's activity", { error: (error as Error).message }),
    );
  return {
    called(principal) {
      if (!due(`${principal}\ncall`)) return;
      write(async () => {
        const hash = hashKey(principal);
        await store.set(callKey(hash), { principal, at: now() } satisfies Moment, PERSON_TTL_MS);
        await store.index(PEOPLE_INDEX).add(hash, PERSON_TTL_MS);
      });
    },
    used(principal, provider) {
      if (!due(`${principal}\n${provider}`)) return;
      write(() =>
        store.set(
          useKey(hashKey(principal), provider),
          { principal, at: now() } satisfies Moment,
          PERSON_TTL_MS,
        ),
      );
    },
  };
}

/** What the store knows of one person, for `admin`. */
export interface Person {
  /** The hash their records are kept under. */
  hash: string;
  /** What log lines call them (see `pseudonymOf`). */
  pseudonym: string;
  /** Their principal (`<issuer>#<sub>`, `token:<name>`); undefined when no record says. */
  principal?: string;
  display?: string;
  signedInAt?: number;
  lastCall?: number;
  /** When each connection was last handed to a tool. */
  lastUse: Partial<Record<ProviderId, number>>;
}

/** The person whose records are under `hash`. @throws StoreUnavailable */
export async function readPerson(store: TeamStore, hash: string): Promise<Person> {
  const [record, call, ...uses] = await Promise.all([
    store.get<PersonRecord>(personKey(hash)),
    store.get<Moment>(callKey(hash)),
    ...PROVIDER_IDS.map((provider) => store.get<Moment>(useKey(hash, provider))),
  ]);
  const lastUse: Person["lastUse"] = {};
  PROVIDER_IDS.forEach((provider, index) => {
    const at = uses[index]?.at;
    if (at !== undefined) lastUse[provider] = at;
  });
  return {
    hash,
    pseudonym: pseudonymOf(hash),
    principal: record?.principal ?? call?.principal ?? uses.find((use) => use)?.principal,
    display: record?.display,
    signedInAt: record?.signedInAt,
    lastCall: call?.at,
    lastUse,
  };
}

/**
 * The hash of the person `id` names: their principal, their full hash, or the pseudonym log lines
 * show (matched against the index of people); undefined when none matches.
 */
export async function findPerson(store: TeamStore, id: string): Promise<string | undefined> {
  const members = await store.index(PEOPLE_INDEX).members();
  if (members.includes(id)) return id;
  const byPrincipal = hashKey(id);
  if (members.includes(byPrincipal) || (await store.has(personKey(byPrincipal)))) return byPrincipal;
  if (/^[\w-]{12}$/.test(id)) return members.find((member) => member.startsWith(id));
  return undefined;
}

/** Whether `id` is written as a principal is: `<issuer>#<subject>` or `token:<name>`. */
export const isPrincipal = (id: string): boolean => id.includes("#") || id.startsWith("token:");

/** Forgets what the list knows of the person under `hash`: their records and their place in the index. */
export async function forgetPerson(store: TeamStore, hash: string): Promise<void> {
  await Promise.all([
    store.delete(personKey(hash)),
    store.delete(callKey(hash)),
    ...PROVIDER_IDS.map((provider) => store.delete(useKey(hash, provider))),
  ]);
  await store.index(PEOPLE_INDEX).remove(hash);
}
