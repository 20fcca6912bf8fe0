import type { Logger } from "@toolkits/core";
import { type OAuthClients, PROVIDER_IDS, type ProviderId } from "../credentials/providers.js";
import { teamGrants } from "../credentials/team-grants.js";
import { endPersonAsSessions, endPersonGrants } from "./authorize/adapter.js";
import { revokePersonClients } from "./authorize/consent.js";
import { endPersonSessions } from "./connect/session.js";
import { type Revocation, revokeConnection } from "./connect/upstream.js";
import { endPendingCodes } from "./connections.js";
import { identityKey } from "./identity.js";
import { forgetPerson } from "./people.js";
import { hashKey, type TeamStore } from "./store/index.js";

/** What ending a person's access found and ended. */
export interface Offboarded {
  /** Their grants at the built-in authorization server (each client's refresh and access tokens). */
  grants: number;
  /** The clients they had authorised (consents). */
  clients: number;
  /** Their signed-in /connect sessions. */
  sessions: number;
  /** The built-in authorization server's own sessions of their browsers. */
  authorizationSessions: number;
  /** Their live connect links. */
  codes: number;
  /** Their upstream connections, removed, and what each provider did with its revocation. */
  connections: { provider: ProviderId; revocation: Revocation }[];
}

/** To also remove a person's upstream connections, revoking each at its provider where it can be. */
export interface Upstream {
  /** This deployment's OAuth clients: their secrets go with the revocations. */
  clients: OAuthClients;
  logger: Logger;
}

/**
 * Ends everything of `principal` here, each part found through an index of theirs (O(their
 * records), never a walk of the store): first their grants, so every replica refuses their tokens
 * from the next request on, then their consents, their /connect and authorization-server sessions,
 * their connect links and their refresh token at the identity provider. With `upstream`, also
 * removes their connections, revoking them at each provider that offers revocation, and forgets them
 * in the list of people (`admin revoke`); without it the connections stay, unusable until they sign
 * in again (the identity provider's refusal, a named token removed).
 * @throws StoreUnavailable
 */
export async function endPerson(
  store: TeamStore,
  principal: string,
  upstream?: Upstream,
): Promise<Offboarded> {
  const hash = hashKey(principal);
  const grants = await endPersonGrants(store, hash);
  const clients = await revokePersonClients(store, hash);
  const sessions = await endPersonSessions(store, hash);
  const authorizationSessions = await endPersonAsSessions(store, hash);
  const codes = await endPendingCodes(store, principal);
  await store.delete(identityKey(hash));
  const connections = upstream ? await endConnections(store, principal, upstream) : [];
  if (upstream) await forgetPerson(store, hash);
  return { grants, clients, sessions, authorizationSessions, codes, connections };
}

/**
 * Removes each connection of `principal`, every account at every provider, revoking it at its
 * provider (best effort, as /connect does).
 */
async function endConnections(store: TeamStore, principal: string, upstream: Upstream) {
  const grants = teamGrants(store, upstream.clients)(principal);
  const ended: Offboarded["connections"] = [];
  for (const provider of PROVIDER_IDS) {
    for (const { label } of await grants.list(provider)) {
      const removed = await grants.remove(provider, label);
      if (removed) ended.push({ provider, revocation: await revokeConnection(upstream, principal, removed) });
    }
  }
  return ended;
}
