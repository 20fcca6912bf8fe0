import {
  AS_PREFIX,
  CLIENTS_INDEX,
  clientGrants,
  type Stored,
  UNUSED_CLIENT_TTL_MS,
} from "../team/authorize/adapter.js";
import { type RemovedClient, removeClient } from "../team/authorize/remove-client.js";
import type { TeamStore } from "../team/store/index.js";
import { iso, json, table, when } from "./format.js";

/** A registered client as `admin clients` shows it. */
interface Registered {
  clientId: string;
  name?: string;
  redirectUris: string[];
  registeredAt?: number;
  /**
   * When it was last used (an authorization or a token request), to the day: each use pushes its
   * expiry back to 90 days from then, at most once a day.
   */
  lastUse?: number;
  grants: number;
}

async function registered(store: TeamStore, clientHash: string): Promise<Registered | undefined> {
  const [stored, grants] = await Promise.all([
    store.get<Stored>(`${AS_PREFIX}Client:${clientHash}`),
    store.index(clientGrants(clientHash)).count(),
  ]);
  if (!stored) return undefined;
  const { client_id, client_name, redirect_uris, client_id_issued_at } = stored.payload as {
    client_id?: string;
    client_name?: string;
    redirect_uris?: string[];
    client_id_issued_at?: number;
  };
  return {
    clientId: String(client_id),
    name: client_name,
    redirectUris: redirect_uris ?? [],
    registeredAt: client_id_issued_at === undefined ? undefined : client_id_issued_at * 1000,
    lastUse: stored.expiresAt === undefined ? undefined : stored.expiresAt - UNUSED_CLIENT_TTL_MS,
    grants,
  };
}

/**
 * `admin clients`: the clients that registered themselves (dynamic registration), latest used
 * first. Clients known by a metadata document are not stored, so not listed. @throws StoreUnavailable
 */
export async function clients(store: TeamStore, asJson: boolean): Promise<string> {
  const hashes = await store.index(CLIENTS_INDEX).members();
  const all = (await Promise.all(hashes.map((hash) => registered(store, hash))))
    .filter((client) => client !== undefined)
    .sort((a, b) => (b.lastUse ?? 0) - (a.lastUse ?? 0));
  if (asJson)
    return json(
      all.map((client) => ({
        ...client,
        name: client.name ?? null,
        registeredAt: iso(client.registeredAt),
        lastUse: iso(client.lastUse),
      })),
    );
  if (!all.length) return "No registered clients.\n";
  return table(
    ["client", "name", "redirect uris", "registered", "last use", "grants"],
    all.map((client) => [
      client.clientId,
      client.name ?? "",
      client.redirectUris.join(" "),
      when(client.registeredAt),
      when(client.lastUse).slice(0, 10),
      String(client.grants),
    ]),
  );
}

/** `admin remove-client <id>`: what was removed, or undefined when the store knows no such client. */
export async function removeRegistered(
  store: TeamStore,
  clientId: string,
  asJson: boolean,
): Promise<string | undefined> {
  const removed: RemovedClient = await removeClient(store, clientId);
  if (!removed.registered && !removed.grants) return undefined;
  if (asJson) return json({ clientId, ...removed });
  const how = removed.registered
    ? "Its registration is gone: its next request gets invalid_client, and it must register again."
    : "It was not registered (a metadata document's client): it can connect again, with each person's consent.";
  return `Removed ${clientId}: ${removed.grants} grant${removed.grants === 1 ? "" : "s"} ended. ${how}\n`;
}
