import { DEFAULT_LABEL } from "../credentials/labels.js";
import { PROVIDER_IDS, type ProviderId } from "../credentials/providers.js";
import { connectionRecords } from "../credentials/team-grants.js";
import { grantAlive, personGrants } from "../team/authorize/adapter.js";
import { type AuthorisedClient, authorisedKey, personIndex } from "../team/authorize/consent.js";
import { personSessions } from "../team/connect/session.js";
import { type IdentityRecord, identityKey } from "../team/identity.js";
import { PEOPLE_INDEX, type Person, readPerson } from "../team/people.js";
import type { TeamStore } from "../team/store/index.js";
import { fields, iso, json, table, when } from "./format.js";

/** One connection of a person, as `admin person` shows it: never a token. */
interface Connection {
  provider: ProviderId;
  /** Which of the person's accounts at the provider it is, as connector URLs name it (`pager@eu`). */
  label: string;
  /** Whether it is the provider's default account, the one a URL naming no label acts as. */
  default: boolean;
  account?: string;
  scopes: string[];
  connectedAt?: number;
  lastUse?: number;
}

/** A person with what `admin people` shows of them. */
interface Listed extends Person {
  connections: Connection[];
  /** How many clients they authorised at the built-in authorization server. */
  clients: number;
}

async function connectionsOf(store: TeamStore, person: Person): Promise<Connection[]> {
  const records = await Promise.all(
    PROVIDER_IDS.map((provider) => connectionRecords(store, person.hash, provider)),
  );
  // Each provider's records come default first.
  return records.flat().map(({ provider, label, account, scopes, connectedAt }, index, all) => ({
    provider,
    label: label ?? DEFAULT_LABEL,
    default: all[index - 1]?.provider !== provider,
    account,
    scopes: scopes ?? [],
    connectedAt,
    lastUse: person.lastUse[provider],
  }));
}

/** A connection as a connector URL names its account: `pager@eu`. */
const accountName = (connection: Connection): string => `${connection.provider}@${connection.label}`;

/** How many of the person's grants are alive (a member may outlive its grant, ended by itself). */
async function liveGrants(store: TeamStore, hash: string): Promise<number> {
  const grants = await store.index(personGrants(hash)).members();
  return (await Promise.all(grants.map((grant) => grantAlive(store, grant)))).filter(Boolean).length;
}

async function listed(store: TeamStore, hash: string): Promise<Listed> {
  const person = await readPerson(store, hash);
  const [connections, clients] = await Promise.all([
    connectionsOf(store, person),
    store.index(personIndex(hash)).count(),
  ]);
  return { ...person, connections, clients };
}

/** `admin people`: everyone in the index of people, most recent call first. @throws StoreUnavailable */
export async function people(store: TeamStore, asJson: boolean): Promise<string> {
  const hashes = await store.index(PEOPLE_INDEX).members();
  const all = await Promise.all(hashes.map((hash) => listed(store, hash)));
  all.sort((a, b) => (b.lastCall ?? b.signedInAt ?? 0) - (a.lastCall ?? a.signedInAt ?? 0));
  if (asJson)
    return json(
      all.map((person) => ({
        person: person.pseudonym,
        principal: person.principal ?? null,
        name: person.display ?? null,
        connections: [...new Set(person.connections.map((connection) => connection.provider))],
        accounts: person.connections.map(accountName),
        clients: person.clients,
        signedIn: iso(person.signedInAt),
        lastCall: iso(person.lastCall),
      })),
    );
  if (!all.length) return "Nobody yet: people appear once they sign in at /connect or call a tool.\n";
  return table(
    ["person", "principal", "name", "connections", "clients", "last call"],
    all.map((person) => [
      person.pseudonym,
      person.principal ?? "",
      person.display ?? "",
      person.connections.map(accountName).join(", "),
      String(person.clients),
      when(person.lastCall),
    ]),
  );
}

/** `admin person <id>`: one person in full (the hash their records are under). @throws StoreUnavailable */
export async function person(store: TeamStore, hash: string, asJson: boolean): Promise<string> {
  const [found, hashes, sessions, grants, identity] = await Promise.all([
    listed(store, hash),
    store.index(personIndex(hash)).members(),
    store.index(personSessions(hash)).count(),
    liveGrants(store, hash),
    store.get<IdentityRecord>(identityKey(hash)),
  ]);
  const clients = (
    await Promise.all(hashes.map((client) => store.get<AuthorisedClient>(authorisedKey(hash, client))))
  )
    .filter((client) => client !== undefined)
    .sort((a, b) => b.at - a.at);
  if (asJson)
    return json({
      person: found.pseudonym,
      principal: found.principal ?? null,
      name: found.display ?? null,
      signedIn: iso(found.signedInAt),
      lastCall: iso(found.lastCall),
      sessions,
      grants,
      identityProvider: identity ? { refreshToken: true, checked: iso(identity.checkedAt) } : null,
      connections: found.connections.map((connection) => ({
        ...connection,
        connectedAt: iso(connection.connectedAt),
        lastUse: iso(connection.lastUse),
      })),
      clients: clients.map((client) => ({
        clientId: client.clientId,
        name: client.name,
        scopes: client.scopes,
        authorised: iso(client.at),
      })),
    });
  const head = fields([
    ["Person", found.pseudonym],
    ["Principal", found.principal ?? ""],
    ["Name", found.display ?? ""],
    ["Signed in", when(found.signedInAt)],
    ["Last call", when(found.lastCall)],
    ["Sessions", `${sessions} at /connect, ${grants} grant${grants === 1 ? "" : "s"}`],
    [
      "Identity",
      identity
        ? `refresh token held, last confirmed ${when(identity.checkedAt)}`
        : "no refresh token at the identity provider: grants end after --grant-max-age",
    ],
  ]);
  const connections = !found.connections.length
    ? "No connections.\n"
    : table(
        ["connection", "label", "account", "scopes", "connected", "last use"],
        found.connections.map((connection) => [
          connection.provider,
          connection.default ? `${connection.label} (default)` : connection.label,
          connection.account ?? "",
          connection.scopes.join(" "),
          when(connection.connectedAt),
          when(connection.lastUse),
        ]),
      );
  const authorised = !clients.length
    ? "No authorised clients.\n"
    : table(
        ["client", "name", "scopes", "authorised"],
        clients.map((client) => [client.clientId, client.name, client.scopes.join(" "), when(client.at)]),
      );
  return `${head}\n${connections}\n${authorised}`;
}
