import {
  createHttpClient,
  type FailureInfo,
  type HttpClient,
  type RateBudget,
  type ToolContext,
  ToolError,
  type UpstreamApi,
} from "@toolkits/core";
import type {
  IncidentStatus,
  PdEscalationPolicy,
  PdIncident,
  PdList,
  PdLogEntry,
  PdOnCall,
  PdSchedule,
  PdService,
  PdTeam,
  PdTeamMember,
  PdUser,
  Urgency,
} from "./types.js";

/** PagerDuty's API hosts by `PAGER_REGION`. */
export const PAGER_REGIONS: Readonly<Record<string, string>> = Object.freeze({
  us: "https://api.pagerduty.com",
  eu: "https://api.eu.pagerduty.com",
});

/** PagerDuty's documented limit: 960 requests a minute per user (all their tokens and keys together). */
export const PAGER_BUDGET: RateBudget = { name: "pager", requests: 960, periodS: 60, per: "user" };

/** The API the tools call, where it answers and the budget every request of theirs counts against. */
export const PAGER_API: UpstreamApi = {
  title: "PagerDuty REST API v2",
  origins: PAGER_REGIONS,
  budgets: [PAGER_BUDGET],
};

/** PagerDuty refuses `offset + limit` above this on every list endpoint. */
export const MAX_OFFSET_PLUS_LIMIT = 10_000;

/** The classic API token that may stand in for an OAuth access token. */
export const API_TOKEN_SECRET = "PAGER_API_TOKEN";

/** Paging fields every list query takes. `total: true` asks PagerDuty to count the records. */
export interface PageQuery {
  limit: number;
  offset: number;
  total?: boolean;
}

/** One page of a list endpoint. */
export interface Page<T> {
  items: T[];
  limit: number;
  offset: number;
  more: boolean;
  /** Only when `total: true` was asked for. */
  total?: number;
}

// Array fields are sent as repeated `name[]` parameters, PagerDuty's convention.
export interface IncidentQuery extends PageQuery {
  statuses?: IncidentStatus[];
  urgencies?: Urgency[];
  service_ids?: string[];
  team_ids?: string[];
  since?: string;
  until?: string;
  /** Comma-separated `field:asc|desc`, e.g. `created_at:desc`. */
  sort_by?: string;
}

export interface LogEntryQuery extends PageQuery {
  since?: string;
  until?: string;
  team_ids?: string[];
  time_zone?: string;
  is_overview: boolean;
}

export interface OnCallQuery extends PageQuery {
  user_ids?: string[];
  schedule_ids?: string[];
  escalation_policy_ids?: string[];
  time_zone?: string;
  since?: string;
  until?: string;
  /** Only the earliest on-call per user, escalation policy and level. */
  earliest?: boolean;
}

export interface NamedQuery extends PageQuery {
  /** Name search. */
  query?: string;
  team_ids?: string[];
}

export interface ScheduleQuery extends PageQuery {
  time_zone?: string;
}

export interface UserQuery extends PageQuery {
  query?: string;
  include?: "teams"[];
}

/**
 * Typed calls to the PagerDuty REST API v2, one method per endpoint the tools use. Every method
 * sends `context.signal` and throws ToolError: `not_found` (with the list tool that finds valid
 * ids), `unauthenticated` (with how to fix the token or region), `rate_limited` (with
 * `retryAfterMs`, after waiting out `ratelimit-reset` within the retry budget), and so on.
 */
export interface PagerClient {
  /** A SHA-256 of the base URL and credential, for per-credential caches; never the credential. */
  readonly credentialKey: string;
  /** `GET /users/me?include[]=teams`. */
  me(): Promise<PdUser>;
  /** `GET /incidents`. */
  incidents(query: IncidentQuery): Promise<Page<PdIncident>>;
  /** `GET /incidents/{id}`; `id` may also be the incident number. */
  incident(id: string): Promise<PdIncident>;
  /** `GET /log_entries`. */
  logEntries(query: LogEntryQuery): Promise<Page<PdLogEntry>>;
  /** `GET /escalation_policies`. */
  escalationPolicies(query: NamedQuery): Promise<Page<PdEscalationPolicy>>;
  /** `GET /escalation_policies/{id}`. */
  escalationPolicy(id: string): Promise<PdEscalationPolicy>;
  /** `GET /services`. */
  services(query: NamedQuery): Promise<Page<PdService>>;
  /** `GET /services/{id}`. */
  service(id: string): Promise<PdService>;
  /** `GET /schedules`. */
  schedules(query: ScheduleQuery): Promise<Page<PdSchedule>>;
  /** `GET /oncalls`. */
  onCalls(query: OnCallQuery): Promise<Page<PdOnCall>>;
  /** `GET /users`. */
  users(query: UserQuery): Promise<Page<PdUser>>;
  /** `GET /teams`. */
  teams(query: PageQuery): Promise<Page<PdTeam>>;
  /** `GET /teams/{id}`. */
  team(id: string): Promise<PdTeam>;
  /** `GET /teams/{id}/members?include[]=users` (members with their team roles). */
  teamMembers(id: string, query: PageQuery): Promise<Page<PdTeamMember>>;
}

/**
 * The API base URL: `PAGER_API_URL` when set, else the host of `PAGER_REGION` (`us` by default).
 * @throws ToolError `invalid_input` for a region other than `us` or `eu`.
 */
export function pagerBaseUrl(context: Pick<ToolContext, "setting">): string {
  const explicit = context.setting("PAGER_API_URL");
  if (explicit) return explicit;
  const region = (context.setting("PAGER_REGION") ?? "us").toLowerCase();
  const url = PAGER_REGIONS[region];
  if (url) return url;
  throw new ToolError(
    "invalid_input",
    `PAGER_REGION is "${region}"; allowed values: ${Object.keys(PAGER_REGIONS).join(", ")}. Fix the server's configuration and restart it.`,
    { retryable: false },
  );
}

/**
 * The `Authorization` header value for the calling tool's credential: `Bearer <OAuth token>`, or
 * `Token token=<PAGER_API_TOKEN>` for a classic API token.
 * @throws ToolError `unauthenticated` naming how to configure either credential.
 */
export async function pagerAuthorization(context: ToolContext): Promise<string> {
  const credential = await context.credential();
  const value = credential.value.reveal();
  return credential.kind === "token" ? `Bearer ${value}` : `Token token=${value}`;
}

/**
 * Builds the client for one tool call, with that call's credential, base URL, fetch, signal and
 * the host's upstream limits; every request counts against PAGER_BUDGET.
 */
export async function createPagerClient(context: ToolContext): Promise<PagerClient> {
  const baseUrl = pagerBaseUrl(context);
  const authorization = await pagerAuthorization(context);
  const http = createHttpClient({
    baseUrl,
    authorization: () => authorization,
    headers: { accept: "application/vnd.pagerduty+json;version=2", "content-type": "application/json" },
    advise: (failure) => advise(failure, context),
    fetch: context.fetch,
    budget: PAGER_BUDGET,
    ...context.upstream,
  });
  const get = <T>(path: string, id?: string, query?: object): Promise<T> =>
    send<T>(http, context.signal, path, id, query);
  // Generic in the query, so each endpoint's own filters pass through with the paging fields.
  const page = async <T, Q extends PageQuery = PageQuery>(
    path: string,
    key: string,
    query: Q,
    id?: string,
  ): Promise<Page<T>> => toPage<T>(await get<PdList & Record<string, unknown>>(path, id, query), key, query);
  const one = async <T>(path: string, key: string, id?: string, query?: object): Promise<T> =>
    field<T>(await get<Record<string, unknown>>(path, id, query), key);
  return {
    // Hashed only when SearchUsers needs its cache key, not on every call; node:crypto is loaded
    // then too, not with the toolkit.
    get credentialKey() {
      const { createHash } = process.getBuiltinModule("node:crypto");
      return createHash("sha256").update(`${baseUrl}\n${authorization}`).digest("hex");
    },
    me: () => one<PdUser>("/users/me", "user", undefined, { include: ["teams"] }),
    incidents: (query) => page("/incidents", "incidents", query),
    incident: (id) => one<PdIncident>("/incidents/{id}", "incident", id),
    logEntries: (query) => page("/log_entries", "log_entries", query),
    escalationPolicies: (query) => page("/escalation_policies", "escalation_policies", query),
    escalationPolicy: (id) => one<PdEscalationPolicy>("/escalation_policies/{id}", "escalation_policy", id),
    services: (query) => page("/services", "services", query),
    service: (id) => one<PdService>("/services/{id}", "service", id),
    schedules: (query) => page("/schedules", "schedules", query),
    onCalls: (query) => page("/oncalls", "oncalls", query),
    users: (query) => page("/users", "users", query),
    teams: (query) => page("/teams", "teams", query),
    team: (id) => one<PdTeam>("/teams/{id}", "team", id),
    teamMembers: (id, query) => page("/teams/{id}/members", "members", { ...query, include: ["users"] }, id),
  };
}

async function send<T>(
  http: HttpClient,
  signal: AbortSignal,
  path: string,
  id: string | undefined,
  query: object | undefined,
): Promise<T> {
  const response = await http.request<T>({
    method: "GET",
    path,
    pathParams: id === undefined ? undefined : { id },
    query: query && queryParams(query),
    signal,
  });
  if (response.data === undefined) {
    throw new ToolError("upstream_error", `GET ${path} answered HTTP ${response.status} with no body.`);
  }
  return response.data;
}

/** PagerDuty names array parameters with a `[]` suffix and repeats them. */
function queryParams(query: object): Record<string, string | number | boolean | string[]> {
  const out: Record<string, string | number | boolean | string[]> = {};
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) {
      if (value.length) out[`${name}[]`] = value;
    } else out[name] = value;
  }
  return out;
}

/** The object a single-record answer wraps (`{"incident": {…}}`). */
function field<T>(body: Record<string, unknown>, key: string): T {
  const record = body[key];
  if (record === null || typeof record !== "object" || Array.isArray(record)) {
    throw new ToolError("upstream_error", `PagerDuty answered without the expected "${key}" object.`);
  }
  return record as T;
}

/**
 * The page in `body`, as asked for in `query`: never more than `limit` records, even when the
 * upstream sends more (then `more` says the rest is there, from `offset + limit`).
 * @throws ToolError `upstream_error` when `body` has no `key` list.
 */
function toPage<T>(body: PdList & Record<string, unknown>, key: string, query: PageQuery): Page<T> {
  const items = body[key];
  if (!Array.isArray(items)) {
    throw new ToolError("upstream_error", `PagerDuty answered without the expected "${key}" list.`);
  }
  const { limit, offset } = query;
  const more = body.more === true || items.length > limit;
  const page: Page<T> = { items: items.slice(0, limit) as T[], limit, offset, more };
  if (typeof body.total === "number") page.total = body.total;
  return page;
}

/** Where to find valid ids when an id is unknown, by the path that failed. */
const LIST_TOOL_FOR: Readonly<Record<string, string>> = {
  "/incidents/{id}": "Pager.ListIncidents",
  "/escalation_policies/{id}": "Pager.ListEscalationPolicies",
  "/services/{id}": "Pager.ListServices",
  "/teams/{id}": "Pager.ListTeams",
  "/teams/{id}/members": "Pager.ListTeams",
};

function advise(failure: FailureInfo, context: ToolContext): string | undefined {
  const { status, request, upstream } = failure;
  if (status === 401) {
    const region = context.setting("PAGER_API_URL")
      ? "PAGER_API_URL"
      : `PAGER_REGION (now ${context.setting("PAGER_REGION") ?? "us"})`;
    return `Check that PAGER_ACCESS_TOKEN (or ${API_TOKEN_SECRET}) holds a valid token and that ${region} matches the account's region (us or eu): a token sent to the other region is refused.`;
  }
  if (request.path === "/users/me" && (status === 400 || status === 403)) {
    return "Pager.WhoAmI needs a user-level credential (an OAuth token or a user's API token); an account-level API key has no current user.";
  }
  if (status === 402) return "The PagerDuty account's plan does not include this feature or filter.";
  if (status === 403) return "The credential lacks a permission or OAuth read scope this call needs.";
  if (status === 404) {
    const id = request.pathParams?.id;
    const finder = LIST_TOOL_FOR[request.path];
    return `No such id${id === undefined ? "" : ` "${id}"`}${finder ? `; ${finder} lists valid ids` : ""}.`;
  }
  if (status === 400 && /offset/i.test(upstream)) {
    return `PagerDuty cannot page past offset + limit = ${MAX_OFFSET_PLUS_LIMIT}; narrow the request with filters (e.g. since/until).`;
  }
  return undefined;
}

/** PagerDuty's largest page. */
export const MAX_PAGE_SIZE = 100;

/**
 * Fetches pages of 100 in order until the list ends or `max` records are in hand.
 * `complete` is false when records were left unread.
 */
export async function collectPages<T>(
  fetchPage: (page: PageQuery) => Promise<Page<T>>,
  max = 1_000,
): Promise<{ items: T[]; complete: boolean }> {
  const items: T[] = [];
  for (let offset = 0; ; offset += MAX_PAGE_SIZE) {
    const page = await fetchPage({ limit: MAX_PAGE_SIZE, offset });
    items.push(...page.items);
    if (!page.more) return { items, complete: true };
    if (items.length >= max || offset + 2 * MAX_PAGE_SIZE > MAX_OFFSET_PLUS_LIMIT) {
      return { items, complete: false };
    }
  }
}
