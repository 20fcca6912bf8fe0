import { createHash } from "node:crypto";
import { within } from "../../http/auth/builtin.js";
import type { AuthorisedClient as Shown } from "../connect/templates.js";
import { hashKey, type TeamStore } from "../store/index.js";
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
}

/** A client a person has authorised, as kept for `/connect`'s list. */
export interface AuthorisedClient extends Shown {
  scopes: string[];
  /** The grants issued to it for this person (one per authorization), which revoking ends. */
  grantIds: string[];
  /** Epoch milliseconds of the latest approval. */
  at: number;
}

/** Approvals and authorised clients live as long as a grant can, in milliseconds (a year). */
const APPROVAL_TTL_MS = 365 * 24 * 3_600_000;
/** The most grants remembered per person and client; older ones live on until they expire. */
const MAX_GRANTS = 20;

const personPrefix = (principal: string) => `tk:as:authorised:${hashKey(principal)}:`;
const clientKey = (principal: string, clientId: string) => `${personPrefix(principal)}${hashKey(clientId)}`;
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
 * Whether `asked` was approved before by the same person, for the same client (unchanged), redirect
 * URI and at least these scopes, at the same resource or one it lies beneath (a connector URL
 * narrows what was approved): then no consent page is shown.
 */
export async function approved(store: TeamStore, asked: Approval): Promise<boolean> {
  const known = await store.get<Approval>(approvalKey(asked));
  if (!known || known.metadata !== asked.metadata) return false;
  if (typeof known.resource !== "string" || !within(asked.resource, known.resource)) return false;
  return asked.scopes.every((scope) => known.scopes.includes(scope));
}

/** Remembers an approval, and the grant it made, for `/connect`'s list of authorised clients. */
export async function remember(
  store: TeamStore,
  approval: Approval,
  client: { name: string; grantId: string },
): Promise<void> {
  await store.set(approvalKey(approval), approval, APPROVAL_TTL_MS);
  const key = clientKey(approval.principal, approval.clientId);
  const known = await store.get<AuthorisedClient>(key);
  const entry: AuthorisedClient = {
    clientId: approval.clientId,
    name: client.name,
    scopes: [...new Set([...(known?.scopes ?? []), ...approval.scopes])],
    grantIds: [client.grantId, ...(known?.grantIds ?? [])].slice(0, MAX_GRANTS),
    at: Date.now(),
  };
  await store.set(key, entry, APPROVAL_TTL_MS);
}

/** The clients `principal` has authorised, latest first. */
export async function authorisedClients(store: TeamStore, principal: string): Promise<AuthorisedClient[]> {
  const keys = await store.keys(personPrefix(principal));
  const found = await Promise.all(keys.map((key) => store.get<AuthorisedClient>(key)));
  return found.filter((entry) => entry !== undefined).sort((a, b) => b.at - a.at);
}

/**
 * Revokes everything `principal` authorised `clientId` to do: its grants (with their codes and
 * refresh tokens, so a refresh answers `invalid_grant`; access tokens end within minutes) and the
 * approvals, so the client is asked about again. Resolves to whether there was anything.
 */
export async function revokeClient(store: TeamStore, principal: string, clientId: string): Promise<boolean> {
  const key = clientKey(principal, clientId);
  const known = await store.get<AuthorisedClient>(key);
  if (!known) return false;
  for (const grantId of known.grantIds) await revokeGrant(store, grantId);
  for (const approval of await store.keys(approvalPrefix(principal, clientId))) await store.delete(approval);
  await store.delete(key);
  return true;
}
