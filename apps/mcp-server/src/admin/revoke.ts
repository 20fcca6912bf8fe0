import type { Logger } from "@toolkits/core";
import { type OAuthClients, PROVIDERS } from "../credentials/providers.js";
import { endPerson } from "../team/offboard.js";
import { isPrincipal, type Person, readPerson } from "../team/people.js";
import type { TeamStore } from "../team/store/index.js";
import { json } from "./format.js";

/** What `admin revoke` printed, and whether every provider confirmed its revocation. */
export interface Revoked {
  text: string;
  /** False when a provider did not confirm revoking a connection: the person should remove it there. */
  confirmed: boolean;
}

/**
 * `admin revoke`: ends everything of the person under `hash` (see `endPerson`), their upstream
 * connections too, revoked at each provider that offers revocation with this deployment's
 * `clients`. Resolves to undefined when the store does not know their principal.
 * @throws StoreUnavailable
 */
export async function revoke(
  store: TeamStore,
  hash: string,
  given: string,
  upstream: { clients: OAuthClients; logger: Logger },
  asJson: boolean,
): Promise<Revoked | undefined> {
  const person: Person = await readPerson(store, hash);
  // A principal given in full names the records even when the store kept no record of them.
  const principal = person.principal ?? (isPrincipal(given) ? given : undefined);
  if (!principal) return undefined;
  const ended = await endPerson(store, principal, upstream);
  const confirmed = ended.connections.every((connection) => connection.revocation !== "failed");
  if (asJson) return { text: json({ person: person.pseudonym, principal, ...ended }), confirmed };
  const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
  const lines = [
    `Revoked ${principal} (${person.pseudonym}): ${count(ended.grants, "grant")}, ${count(ended.clients, "authorised client")}, ${count(ended.sessions, "session")} at /connect and ${ended.authorizationSessions} at the authorization server, ${count(ended.codes, "connect link")}.`,
    ...ended.connections.map(({ provider, revocation }) => {
      const title = PROVIDERS[provider].title;
      if (revocation === "revoked") return `${provider}: removed, and revoked at ${title}.`;
      if (revocation === "failed")
        return `${provider}: removed, but ${title} did not confirm the revocation: remove this app's access in the person's ${title} account.`;
      return `${provider}: removed; ${title} offers no revocation from here: remove the access (or delete the key) in the person's ${title} account.`;
    }),
    ...(ended.connections.length ? [] : ["No upstream connections."]),
  ];
  return { text: `${lines.join("\n")}\n`, confirmed };
}
