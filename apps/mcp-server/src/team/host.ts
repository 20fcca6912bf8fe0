import { type CallRecord, type Host, hostFetch, type StateStore, type UpstreamInit } from "@toolkits/core";
import { API_KEY_SECRET, REGION_SETTING } from "@toolkits/marketing";
import { accountIn, type ChoosingHost, providerOfToolkit } from "../credentials/choice.js";
import { type AccountChoice, chosen, NO_CHOICE } from "../credentials/labels.js";
import type { ProviderId } from "../credentials/providers.js";
import type { GrantStore } from "../credentials/store.js";
import { TOOLKITS } from "../toolkits.js";
import type { PersonCredentials } from "./credentials.js";
import type { PersonLimits } from "./limits.js";
import type { Activity } from "./people.js";
import { hashKey } from "./store/index.js";

/** What a host acting for each person separately needs. */
export interface PerUserDeps {
  credentials(principal: string): PersonCredentials;
  /** Each person's accounts, to say which answered (who-am-I results). */
  grants(principal: string): GrantStore;
  limits: PersonLimits;
  /** Each person's toolkit state (their page sessions), apart from everyone else's. */
  state(principal: string): StateStore;
  /** Hears of each call and each connection it uses (their last call and last use, for `admin`). */
  activity?: Activity;
}

/**
 * A host on which every call acts as the calling person upstream (`--credentials per-user`): the
 * server's own credentials are never used, each person's come from their connections, and each
 * person's upstream requests are counted against their own budgets, and each person's toolkit state
 * is their own. Settings (regions, API URLs) stay the server's, except the marketing region, which
 * the person's key carries. Each person acts as the accounts `accounts` (or a connector URL, through
 * `chooseAccounts`) names by label, their default account at every other provider; budgets counted
 * per person are counted per person and account (the account that answered, however it was named).
 */
export function perUserHost(
  base: Host,
  deps: PerUserDeps,
  accounts: AccountChoice = NO_CHOICE,
): ChoosingHost {
  return {
    ...base,
    // Nobody acts as the server itself: a call without a person has no credentials.
    secrets: () => undefined,
    tokens: () => undefined,
    forPrincipal: (principal) => personHost(base, principal, deps, accounts),
    chooseAccounts: (choice) => {
      const both = chosen(accounts, choice);
      return { forPrincipal: (principal) => personHost(base, principal, deps, both) };
    },
    answeringAccount: async (provider, principal, choice) =>
      principal === undefined
        ? undefined
        : accountIn(deps.grants(principal), provider, chosen(accounts, choice)[provider]),
  };
}

/** The provider whose account each budget counts (`sheets-read` → `google`). */
const BUDGET_PROVIDERS: ReadonlyMap<string, ProviderId | undefined> = new Map(
  Object.values(TOOLKITS).flatMap((kit) =>
    (kit.upstreams ?? []).flatMap((api) =>
      api.budgets.map((budget) => [budget.name, providerOfToolkit(kit)]),
    ),
  ),
);

/** What the per-user audit line hears of a call: core's record, and the accounts the call acted as (by label). */
export type AccountCallRecord = CallRecord & { accounts?: AccountChoice };

/** One call's view of the host for `principal`, acting as the accounts `choice` names. */
function personHost(base: Host, principal: string, deps: PerUserDeps, choice: AccountChoice): Host {
  const credentials = deps.credentials(principal);
  const fetcher = hostFetch(base);
  // The accounts the call's credentials came from, by label: its default's too, once looked up.
  const answered: Partial<Record<ProviderId, string>> = {};
  const accountAt = (provider: ProviderId | undefined) =>
    provider && (answered[provider] ?? choice[provider]);
  // One view per tool call: its making is the call.
  deps.activity?.called(principal);
  const audit = base.audit;
  return {
    ...base,
    forPrincipal: undefined,
    // The audit line names the accounts the call acted as, the default's included.
    audit: audit && ((record) => audit({ ...record, ...accountsOf({ ...choice, ...answered }) })),
    state: deps.state(principal),
    async tokens(provider, scopes) {
      if (provider !== "pager" && provider !== "google") return undefined;
      const { token, label } = await credentials.accessToken(provider, scopes, choice[provider]);
      answered[provider] = label;
      deps.activity?.used(principal, provider);
      return token;
    },
    async secrets(name) {
      if (name !== API_KEY_SECRET) return undefined;
      const { key, region, label } = await credentials.marketingKey(choice.marketing);
      answered.marketing = label;
      deps.activity?.used(principal, "marketing");
      return region ? { value: key, settings: { [REGION_SETTING]: region } } : key;
    },
    // Each request names the budget its toolkit declared it counts against (UpstreamInit.budget).
    async fetch(input, init) {
      const budget = init?.budget;
      if (budget) {
        // Counted per person and account (the account whatever URL named it, so the default's
        // budget is one), or, for a budget counted per credential (the App API's, per key), under
        // the credential's hash.
        const label = accountAt(BUDGET_PROVIDERS.get(budget.name));
        const person = label === undefined ? principal : `${principal}\n${label}`;
        const key = budget.per === "credential" ? hashKey(authorization(input, init)) : person;
        await deps.limits.take(budget.name, key, init?.signal ?? requestOf(input)?.signal);
      }
      return fetcher(input, init);
    },
  };
}

const accountsOf = (accounts: AccountChoice): { accounts?: AccountChoice } =>
  Object.keys(accounts).length ? { accounts } : {};

const requestOf = (input: string | URL | Request): Request | undefined =>
  input instanceof Request ? input : undefined;

/** A request's Authorization header, or "" (read only for budgets counted per credential). */
function authorization(input: string | URL | Request, init: UpstreamInit | undefined): string {
  return new Headers(init?.headers ?? requestOf(input)?.headers).get("authorization") ?? "";
}
