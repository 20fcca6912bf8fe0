import { createHash } from "node:crypto";
import { within } from "../../http/auth/builtin.js";
import { endEach, hashKey, type TeamStore } from "../store/index.js";
import { revokeGrant } from "./adapter.js";
import { isLoopback } from "./clients.js";

/** What a person approved: a client, at one redirect URI, for some scopes of one resource. */
export interface Approval {
  principal: string;
  clientId: string;
  redirectUri: string;
  /** The MCP URL or connector URL the tokens are for (RFC 8707 `resource`). */
  resource: string;
  scopes: readonly string[];
  /** A digest of the client's metadata as shown when approved: a changed client is asked about again. */
  metadata: string;
  /** Epoch milliseconds of the approval (absent in records written before it was kept). */
  at?: number;
}

/** A client a person has authorised, as kept for `/connect`'s list. */
export interface AuthorisedClient {
  clientId: string;
  /** Its name as the consent page showed it (self-asserted), else its id. */
  name: string;
  /** Every scope the person granted it, over all their approvals. */
  scopes: string[];
  /** The grants issued to it for this person (one per authorization), which revoking ends. */
  grantIds: string[];
  /** Epoch milliseconds of the latest approval. */
  at: number;
  /**
   * Epoch milliseconds since the client has been authorised without a break: approvals older than
   * this were revoked with it (absent in records written before it was kept: every approval counts).
   */
  since?: number;
}

/**
 * The clients people authorised here, as `/connect` lists them (with a revoke button each): the
 * built-in authorization server's `clients`, over `authorisedClients` and `revokeClient`.
 */
export interface AuthorisedClients {
  /** Latest first. @throws StoreUnavailable */
  list(principal: string): Promise<AuthorisedClient[]>;
  /** Revokes every grant `principal` gave `clientId`; resolves to whether there was one. @throws StoreUnavailable */
  revoke(principal: string, clientId: string): Promise<boolean>;
}

/** Approvals and authorised clients live as long as a grant can, in milliseconds (a year). */
export const APPROVAL_TTL_MS = 365 * 24 * 3_600_000;
/** The most grants remembered per person and client; older ones live on until they expire. */
const MAX_GRANTS = 20;

/** Where a person's authorised clients are kept: `tk:as:authorised:<hash(person)>:<hash(client)>`. */
export const AUTHORISED_PREFIX = "tk:as:authorised:";
/** The index of the clients a person authorised (members: the hashes of the client ids), by the person's hash. */
export const personIndex = (personHash: string) => `tk:as:person-clients:${personHash}`;
/** A person's record of one client they authorised, by both hashes. */
export const authorisedKey = (personHash: string, clientHash: string): string =>
  `${AUTHORISED_PREFIX}${personHash}:${clientHash}`;
const clientKey = (principal: string, clientHash: string) => authorisedKey(hashKey(principal), clientHash);
const approvalPrefix = (principal: string, clientId: string) =>
  `tk:as:approval:${hashKey(`${principal}\n${clientId}`)}:`;

/**
 * The redirect URI as approvals are keyed: a loopback one without its port, which a native app picks
 * anew on every run (RFC 8252 §7.3), so an approval at `http://127.0.0.1:33418/` holds at any port.
 */
export function approvalRedirect(uri: string): string {
  const parsed = URL.parse(uri);
  if (parsed?.protocol !== "http:" || !isLoopback(parsed.hostname)) return uri;
  parsed.port = "";
  return parsed.href;
}

/** A digest of client metadata, to notice a client that changed since it was approved. */
export const metadataDigest = (metadata: Record<string, unknown>): string =>
  createHash("sha256")
    .update(JSON.stringify(metadata, Object.keys(metadata).sort()))
    .digest("base64url");

const approvalKey = (approval: Pick<Approval, "principal" | "clientId" | "redirectUri">) =>
  `${approvalPrefix(approval.principal, approval.clientId)}${hashKey(approvalRedirect(approval.redirectUri))}`;

/**
 * Whether `asked` was approved before by the same person, for the same client (unchanged, and
 * not revoked since), redirect URI and at least these scopes, at the same resource or one it lies
 * beneath (a connector URL narrows what was approved): then no consent page is shown.
 */
export async function approved(store: TeamStore, asked: Approval): Promise<boolean> {
  const [known, client] = await Promise.all([
    store.get<Approval>(approvalKey(asked)),
    store.get<AuthorisedClient>(clientKey(asked.principal, hashKey(asked.clientId))),
  ]);
  if (!known || !client || known.metadata !== asked.metadata) return false;
  if ((known.at ?? 0) < (client.since ?? 0)) return false;
  if (typeof known.resource !== "string" || !within(asked.resource, known.resource)) return false;
  return asked.scopes.every((scope) => known.scopes.includes(scope));
}

/** Remembers an approval, and the grant it made, for `/connect`'s list of authorised clients. */
export async function remember(
  store: TeamStore,
  approval: Approval,
  client: { name: string; grantId: string },
): Promise<void> {
  const now = Date.now();
  await store.set(approvalKey(approval), { ...approval, at: now }, APPROVAL_TTL_MS);
  const clientHash = hashKey(approval.clientId);
  const key = clientKey(approval.principal, clientHash);
  const known = await store.get<AuthorisedClient>(key);
  const entry: AuthorisedClient = {
    clientId: approval.clientId,
    name: client.name,
    scopes: [...new Set([...(known?.scopes ?? []), ...approval.scopes])],
    grantIds: [client.grantId, ...(known?.grantIds ?? [])].slice(0, MAX_GRANTS),
    at: now,
    since: known ? known.since : now,
  };
  await store.set(key, entry, APPROVAL_TTL_MS);
  await store.index(personIndex(hashKey(approval.principal))).add(clientHash, APPROVAL_TTL_MS);
}

/** The clients `principal` has authorised, latest first: O(their clients), never a walk of the store. */
export async function authorisedClients(store: TeamStore, principal: string): Promise<AuthorisedClient[]> {
  const hashes = await store.index(personIndex(hashKey(principal))).members();
  const found = await Promise.all(
    hashes.map((hash) => store.get<AuthorisedClient>(clientKey(principal, hash))),
  );
  return found.filter((entry) => entry !== undefined).sort((a, b) => b.at - a.at);
}

/**
 * Revokes everything `principal` authorised `clientId` to do: its grants (their codes, refresh
 * tokens and access tokens are refused from the next request on) and its approvals (the client is
 * asked about again). Resolves to whether there was anything.
 */
export async function revokeClient(store: TeamStore, principal: string, clientId: string): Promise<boolean> {
  const clientHash = hashKey(clientId);
  const key = clientKey(principal, clientHash);
  const known = await store.get<AuthorisedClient>(key);
  if (!known) return false;
  await Promise.all(known.grantIds.map((grantId) => revokeGrant(store, grantId)));
  // Removing the record revokes the approvals: they count only while it is there (see `approved`).
  await store.delete(key);
  await store.index(personIndex(hashKey(principal))).remove(clientHash);
  return true;
}

/**
 * Revokes every client the person whose hash is `personHash` authorised, as `revokeClient` does
 * for one: O(their clients). Resolves to how many there were. @throws StoreUnavailable
 */
export const revokePersonClients = (store: TeamStore, personHash: string): Promise<number> =>
  endEach(store, personIndex(personHash), async (clientHash) => {
    const key = authorisedKey(personHash, clientHash);
    const known = await store.get<AuthorisedClient>(key);
    await Promise.all((known?.grantIds ?? []).map((grantId) => revokeGrant(store, grantId)));
    return store.delete(key);
  });
