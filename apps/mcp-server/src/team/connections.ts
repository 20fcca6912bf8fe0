import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { ConnectLink } from "@toolkits/core";
import type { Grant } from "../credentials/grant.js";
import { type OAuthClients, PROVIDER_IDS, PROVIDERS, type ProviderId } from "../credentials/providers.js";
import type { GrantStore } from "../credentials/store.js";
import { teamGrants } from "../credentials/team-grants.js";
import { withoutTrailingSlash } from "../urls.js";
import { CONNECT_PATH } from "./paths.js";
import { hashKey, StoreUnavailable, type TeamStore } from "./store/index.js";

/** Who a connect link was made for, and which of their accounts it connects. */
export interface LinkOwner {
  principal: string;
  provider: ProviderId;
  /**
   * The label the account is saved under (a connector URL's `pager@eu` asked for `eu`); absent: a
   * label derived from the account, as for any new connection.
   */
  label?: string;
}

/** How long a connect link works, in milliseconds (10 minutes). */
const CONNECT_LINK_TTL_MS = 10 * 60_000;
/**
 * A person's live code is handed out again while at least this much of its life is left, in
 * milliseconds (3 minutes), so a link is never given with seconds to go; then a new one replaces it.
 */
const REUSE_MIN_LEFT_MS = 3 * 60_000;
/** How long making a person's code may hold its lock, in milliseconds; a crashed holder frees it then. */
const MINT_LOCK_MS = 5_000;
/** How often a caller waiting on another replica's new code looks again, in milliseconds. */
const MINT_POLL_MS = 50;

/** A connect link, and when it stops working. */
export interface PersonLink extends ConnectLink {
  /** Epoch milliseconds. */
  expiresAt: number;
}

/** The whole minutes left until `expiresAt` (epoch milliseconds), at least 1, for messages. */
export const minutesLeft = (expiresAt: number, now = Date.now()): number =>
  Math.max(1, Math.round((expiresAt - now) / 60_000));

export { CONNECT_PATH } from "./paths.js";

/** People's connections (their grants) and the single-use links that create them, in the team store. */
export interface Connections {
  /** The grants of `principal`. */
  of(principal: string): GrantStore;
  /** Every grant of `principal`, in PROVIDER_IDS order, each provider's default account first. */
  list(principal: string): Promise<Grant[]>;
  /**
   * A link to `/connect/<provider>?code=…` with the person's single-use code for `provider` and
   * `label` (the account it saves, see LinkOwner): the live one while it has at least 3 minutes
   * left and is unspent, else a new one working for 10 minutes, which replaces it. A person holds
   * at most one live code per provider and label, whichever replica and however many calls ask at
   * once. The link's message names the label.
   */
  link(principal: string, provider: ProviderId, label?: string): Promise<PersonLink>;
  /** Who a code was made for, without using it up; `undefined` when unknown or expired. */
  peek(code: string): Promise<LinkOwner | undefined>;
  /** Uses a code up: of several concurrent callers at most one gets its owner. */
  redeem(code: string): Promise<LinkOwner | undefined>;
}

const codeKey = (code: string) => `tk:code:${hashKey(code)}`;
/** The hash naming a person's live code for a provider and label (the label's absence keeps the earlier hash). */
const pendingHash = ({ principal, provider, label }: LinkOwner) =>
  hashKey(label === undefined ? `${principal}\n${provider}` : `${principal}\n${provider}\n${label}`);
const pendingKey = (owner: LinkOwner) => `tk:pending:${pendingHash(owner)}`;
/** The index of a person's live codes for labelled accounts (their pending hashes), so offboarding finds them. */
const labelledIndex = (principal: string) => `tk:pending-labelled:${hashKey(principal)}`;

/** A person's live code for a provider and label, under `tk:pending:<pendingHash>`. */
interface PendingCode {
  code: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

/**
 * Connections in `store`, with links on `publicUrl` (the server's externally visible base URL);
 * `clients` are this deployment's OAuth clients, whose secrets refresh and revoke the grants.
 * Every method rejects with StoreUnavailable when the store is out of reach.
 */
export function storedConnections(store: TeamStore, publicUrl: string, clients: OAuthClients): Connections {
  const base = withoutTrailingSlash(publicUrl);
  const of = teamGrants(store, clients);
  const flights = new Map<string, Promise<PendingCode>>();
  return {
    of,
    async list(principal) {
      const grants = of(principal);
      return (await Promise.all(PROVIDER_IDS.map((provider) => grants.list(provider)))).flat();
    },
    async link(principal, provider, label) {
      const { code, expiresAt } = await pendingCode({ principal, provider, ...(label ? { label } : {}) });
      const account = label === undefined ? "account" : `account “${label}”`;
      return {
        url: `${base}${CONNECT_PATH}/${provider}?code=${code}`,
        id: randomBytes(12).toString("base64url"),
        message: `Connect your ${PROVIDERS[provider].title} ${account} to continue: open the link, sign in, and allow access (the link works for ${minutesLeft(expiresAt)} minutes).`,
        expiresAt,
      };
    },
    peek: (code) => store.get<LinkOwner>(codeKey(code)),
    redeem: (code) => store.take<LinkOwner>(codeKey(code)),
  };
  // Calls of this process for one person, provider and label share one lookup; replicas share the lock.
  function pendingCode(owner: LinkOwner): Promise<PendingCode> {
    const key = pendingKey(owner);
    let flight = flights.get(key);
    if (!flight) {
      flight = reusable(store, key).then((found) => found ?? mintUnderLock(store, key, owner));
      flight = flight.finally(() => flights.delete(key));
      flights.set(key, flight);
    }
    return flight;
  }
}

/** The live code under `key` while it is unspent and has REUSE_MIN_LEFT_MS left. */
async function reusable(store: TeamStore, key: string): Promise<PendingCode | undefined> {
  const pending = await store.get<PendingCode>(key);
  if (!pending || pending.expiresAt - Date.now() < REUSE_MIN_LEFT_MS) return undefined;
  // A spent code's record is gone.
  return (await store.get(codeKey(pending.code))) ? pending : undefined;
}

/**
 * A new code for `owner` under `key`, made under the store's lock (another replica may have made
 * one meanwhile: then that one); the code it replaces stops working.
 * @throws StoreUnavailable when the store is out of reach, or another holder keeps the lock.
 */
async function mintUnderLock(store: TeamStore, key: string, owner: LinkOwner): Promise<PendingCode> {
  const deadline = Date.now() + 2 * MINT_LOCK_MS;
  do {
    const release = await store.tryLock(`${key}:lock`, MINT_LOCK_MS);
    if (release) {
      try {
        return (await reusable(store, key)) ?? (await mint(store, key, owner));
      } finally {
        await release().catch(() => {});
      }
    }
    await sleep(MINT_POLL_MS);
    const made = await reusable(store, key);
    if (made) return made;
  } while (Date.now() < deadline);
  throw new StoreUnavailable("a connect link was being made elsewhere for too long");
}

async function mint(store: TeamStore, key: string, owner: LinkOwner): Promise<PendingCode> {
  const replaced = await store.get<PendingCode>(key);
  const made: PendingCode = {
    code: randomBytes(24).toString("base64url"),
    expiresAt: Date.now() + CONNECT_LINK_TTL_MS,
  };
  await store.set(codeKey(made.code), owner, CONNECT_LINK_TTL_MS);
  await store.set(key, made, CONNECT_LINK_TTL_MS);
  if (owner.label !== undefined)
    await store.index(labelledIndex(owner.principal)).add(pendingHash(owner), CONNECT_LINK_TTL_MS);
  if (replaced) await store.delete(codeKey(replaced.code));
  return made;
}

/**
 * Ends the connect links `principal` holds (one per provider and label at most): their codes stop
 * working. Resolves to how many were live. @throws StoreUnavailable
 */
export async function endPendingCodes(store: TeamStore, principal: string): Promise<number> {
  const labelled = store.index(labelledIndex(principal));
  const hashes = await labelled.members();
  const keys = [
    ...PROVIDER_IDS.map((provider) => pendingKey({ principal, provider })),
    ...hashes.map((hash) => `tk:pending:${hash}`),
  ];
  const ended = await Promise.all(
    keys.map(async (key) => {
      const pending = await store.take<PendingCode>(key);
      return pending !== undefined && (await store.delete(codeKey(pending.code)));
    }),
  );
  await Promise.all(hashes.map((hash) => labelled.remove(hash)));
  return ended.filter(Boolean).length;
}
