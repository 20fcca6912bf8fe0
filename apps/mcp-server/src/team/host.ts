import type { Host, StateStore } from "@toolkits/core";
import { REGIONS } from "@toolkits/marketing";
import type { PersonCredentials } from "./credentials.js";
import type { Budget, Classify, PersonLimits } from "./limits.js";
import { hashKey } from "./store/index.js";

/** The marketing toolkit's secret and region setting (its client reads them by these names). */
const MARKETING_KEY = "MARKETING_API_KEY";
const MARKETING_REGION = "MARKETING_REGION";
const PAGER_HOSTS = ["https://api.pagerduty.com/", "https://api.eu.pagerduty.com/"];
const SHEETS_ROOT = "https://sheets.googleapis.com/";

/** What a host acting for each person separately needs. */
export interface PerUserDeps {
  credentials(principal: string): PersonCredentials;
  limits: PersonLimits;
  /** Each person's toolkit state (their page sessions), apart from everyone else's. */
  state(principal: string): StateStore;
}

/**
 * A host on which every call acts as the calling person upstream (`--credentials per-user`): the
 * server's own credentials are never used, each person's come from their connections, and each
 * person's upstream requests are counted against their own budgets, and each person's toolkit state
 * is their own. Settings (regions, API URLs)
 * stay the server's, except the marketing region, which belongs with each person's key.
 */
export function perUserHost(base: Host, deps: PerUserDeps): Host {
  const classify = budgetOf((name) => base.settings(name));
  return {
    ...base,
    // Nobody acts as the server itself: a call without a person has no credentials.
    secrets: () => undefined,
    tokens: () => undefined,
    forPrincipal: (principal) => personHost(base, principal, deps, classify),
  };
}

/** One call's view of the host for `principal` (made per call: it remembers the marketing region). */
function personHost(base: Host, principal: string, deps: PerUserDeps, classify: Classify): Host {
  const credentials = deps.credentials(principal);
  let region: string | undefined;
  const fetcher = base.fetch ?? ((input, init) => fetch(input, init));
  return {
    ...base,
    forPrincipal: undefined,
    state: deps.state(principal),
    tokens: (provider, scopes) =>
      provider === "pager" || provider === "google" ? credentials.accessToken(provider, scopes) : undefined,
    async secrets(name) {
      if (name !== MARKETING_KEY) return undefined;
      const { key, region: chosen } = await credentials.marketingKey();
      region = chosen;
      return key;
    },
    settings: (name) => (name === MARKETING_REGION && region ? region : base.settings(name)),
    async fetch(input, init) {
      const { url, method } = requestTarget(input, init);
      const budget = classify(url, method);
      if (budget) {
        // The App API's limit is per key (counted under its hash); the others' per user.
        const key = budget === "marketing" ? hashKey(authorization(input, init)) : principal;
        await deps.limits.take(budget, key, init?.signal ?? undefined);
      }
      return fetcher(input, init);
    },
  };
}

/** A request's URL and method, read without touching its body (a stream is read once). */
function requestTarget(input: string | URL | Request, init: RequestInit | undefined) {
  const request = input instanceof Request ? input : undefined;
  return {
    url: new URL(request?.url ?? String(input)),
    method: (init?.method ?? request?.method ?? "GET").toUpperCase(),
  };
}

/** A request's Authorization header, or "" (read only for the App API, whose budget is per key). */
function authorization(input: string | URL | Request, init: RequestInit | undefined): string {
  const headers = init?.headers ?? (input instanceof Request ? input.headers : undefined);
  return new Headers(headers).get("authorization") ?? "";
}

/**
 * Which budget a request counts against, from where it goes: PagerDuty's API, Sheets (reads are
 * GETs), the App API; anything else (Drive, OAuth) is not counted. The toolkits' API URL settings
 * (fakes, proxies) are recognised like the real hosts.
 */
function budgetOf(setting: (name: string) => string | undefined): Classify {
  const withSlash = (url: string | undefined) => url?.replace(/\/*$/, "/");
  const pager = [withSlash(setting("PAGER_API_URL")), ...PAGER_HOSTS].filter(Boolean) as string[];
  const google = [withSlash(setting("GOOGLE_API_ROOT_URL")), SHEETS_ROOT].filter(Boolean) as string[];
  const marketing = [
    withSlash(setting("MARKETING_API_URL")),
    ...Object.values(REGIONS).map(withSlash),
  ].filter(Boolean) as string[];
  return (url: URL, method: string): Budget | undefined => {
    const href = url.href;
    if (pager.some((base) => href.startsWith(base))) return "pager";
    if (marketing.some((base) => href.startsWith(base))) return "marketing";
    const sheets = google.some((root) => href.startsWith(`${root}v4/spreadsheets`));
    if (sheets) return method === "GET" ? "sheets-read" : "sheets-write";
    return undefined;
  };
}
