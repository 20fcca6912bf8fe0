import { delay, type HttpHandler, HttpResponse, http, type JsonBodyType } from "msw";
import type { PdIncident, PdLogEntry, PdReference, PdUser } from "../types.js";
import type { PagerAccount } from "./account.js";
import { onCallEntries } from "./oncalls.js";
import { PdFailure, Query } from "./query.js";

export interface HandlerOptions {
  /** Where the handlers listen, e.g. `https://api.pagerduty.com`. */
  baseUrl: string;
  /** The one credential accepted, as `Bearer <token>` or `Token token=<token>`. */
  token: string;
  /** Simulated latency per request, in milliseconds. */
  latencyMs: number;
}

const DAY_MS = 86_400_000;
const MAX_ONCALL_AHEAD_MS = 90 * DAY_MS;
const MAX_INCIDENT_RANGE_MS = 183 * DAY_MS;

const notFound = (message: string, code: number) => new PdFailure(404, { error: { message, code } });

type Answer = (query: Query, params: Record<string, string>) => JsonBodyType;

/** msw handlers for the endpoints the Pager.* tools call, answering from `account`. */
export function pagerHandlers(account: PagerAccount, options: HandlerOptions): HttpHandler[] {
  const get = (path: string, answer: Answer) =>
    http.get(`${options.baseUrl}${path}`, async ({ request, params }) => {
      if (options.latencyMs) await delay(options.latencyMs);
      const credential = request.headers.get("authorization");
      if (credential !== `Bearer ${options.token}` && credential !== `Token token=${options.token}`) {
        return HttpResponse.json(
          { error: { message: "Authentication failed", code: 2006 } },
          { status: 401 },
        );
      }
      try {
        return HttpResponse.json(answer(new Query(new URL(request.url)), params as Record<string, string>));
      } catch (error) {
        if (error instanceof PdFailure) return HttpResponse.json(error.body, { status: error.status });
        throw error;
      }
    });
  const byId = <T extends { id: string }>(items: T[], wanted: string | undefined, miss: PdFailure): T => {
    const found = items.find((item) => item.id === wanted);
    if (!found) throw miss;
    return found;
  };
  const team = (teamId: string | undefined) => byId(account.teams, teamId, notFound("Team Not Found", 6001));
  return [
    get("/users/me", (query) => ({
      user: withTeams(account.me, account, includesTeams(query, [...USER_INCLUDES, "calendar_urls"])),
    })),
    get("/users", (query) => {
      const expand = includesTeams(query, USER_INCLUDES);
      return query.page("users", users(account, query), (user) => withTeams(user, account, expand));
    }),
    get("/oncalls", (query) => query.page("oncalls", onCalls(account, query))),
    get("/incidents", (query) => query.page("incidents", incidents(account, query))),
    get("/incidents/:id", (_, { id }) => ({
      incident: byId(
        account.incidents,
        account.incidents.find((i) => String(i.incident_number) === id)?.id ?? id,
        notFound("Incident Not Found", 5001),
      ),
    })),
    get("/log_entries", (query) => query.page("log_entries", logEntries(account, query))),
    get("/escalation_policies", (query) => query.page("escalation_policies", policies(account, query))),
    get("/escalation_policies/:id", (_, { id }) => ({
      escalation_policy: byId(account.policies, id, notFound("Escalation Policy Not Found", 5001)),
    })),
    get("/services", (query) => query.page("services", services(account, query))),
    get("/services/:id", (_, { id }) => ({
      service: byId(account.services, id, notFound("Service Not Found", 5002)),
    })),
    get("/schedules", (query) => {
      query.zone();
      const teamIds = query.list("team_ids");
      const named = account.schedules.filter((schedule) => query.nameFilter()(schedule.name));
      return query.page(
        "schedules",
        named.filter((schedule) => !teamIds.length || schedule.teams?.some((t) => teamIds.includes(t.id))),
      );
    }),
    get("/teams", (query) =>
      query.page(
        "teams",
        account.teams.filter((t) => query.nameFilter()(t.name)),
      ),
    ),
    get("/teams/:id", (_, { id }) => ({ team: team(id) })),
    get("/teams/:id/members", (query, { id }) => {
      const expand = query.enums("include", ["users"]).length > 0;
      const members = account.memberships
        .filter((membership) => membership.teamId === team(id).id)
        .map((membership) => {
          const user = account.users.find((u) => u.id === membership.userId) as PdUser;
          return { user: expand ? user : brief(user), role: membership.role };
        });
      return query.page("members", members);
    }),
  ];
}

/** A user as a `user_reference`. */
function brief(user: PdUser): PdReference {
  const { id, summary, self, html_url } = user;
  return { id, type: "user_reference", summary, self, html_url };
}

const USER_INCLUDES = ["contact_methods", "notification_rules", "teams", "subdomains"];

function includesTeams(query: Query, includable: string[]): boolean {
  return query.enums("include", includable).includes("teams");
}

/** With `include[]=teams` a user's team references become full team objects. */
function withTeams(user: PdUser, account: PagerAccount, expand: boolean): PdUser {
  if (!expand) return user;
  return {
    ...user,
    teams: (user.teams ?? []).map((ref) => account.teams.find((t) => t.id === ref.id) ?? ref),
  };
}

// Filters only when asked: benchmarks page through 10,000 users a hundred times.
function users(account: PagerAccount, query: Query): PdUser[] {
  const teamIds = query.list("team_ids");
  let found: PdUser[] = account.users;
  if (query.text("query")) found = found.filter((user) => query.nameFilter()(user.name));
  if (teamIds.length) found = found.filter((user) => user.teams?.some((team) => teamIds.includes(team.id)));
  return found;
}

function onCalls(account: PagerAccount, query: Query) {
  const since = query.time("since") ?? account.now;
  const until = query.time("until") ?? since;
  if (until < since) throw query.invalid("until must be after since.");
  if (until > account.now + MAX_ONCALL_AHEAD_MS)
    throw query.invalid("until cannot be more than 90 days in the future.");
  query.enums("include", ["escalation_policies", "users", "schedules"]);
  const zone = query.zone();
  return onCallEntries(account, {
    since,
    until,
    userIds: query.list("user_ids"),
    scheduleIds: query.list("schedule_ids"),
    policyIds: query.list("escalation_policy_ids"),
    earliest: query.bool("earliest") ?? false,
  }).map((entry) => ({
    ...entry,
    start: query.render(entry.start, zone),
    end: query.render(entry.end, zone),
  }));
}

const INCIDENT_SORT = ["created_at", "incident_number", "resolved_at", "urgency"] as const;

function incidents(account: PagerAccount, query: Query): PdIncident[] {
  const statuses = query.enums("statuses", ["triggered", "acknowledged", "resolved"]);
  const urgencies = query.enums("urgencies", ["high", "low"]);
  const serviceIds = query.list("service_ids");
  const teamIds = query.list("team_ids");
  const userIds = query.list("user_ids");
  const all = query.text("date_range") === "all";
  // Like PagerDuty: no window means the last month; a window may span at most six months.
  const until = query.time("until") ?? account.now;
  const since = query.time("since") ?? until - 30 * DAY_MS;
  if (until <= since) throw query.invalid("until must be after since.");
  if (!all && until - since > MAX_INCIDENT_RANGE_MS)
    throw query.invalid("The date range may span at most 6 months.");
  const [field, direction] = (query.text("sort_by") ?? "created_at:asc").split(":");
  if (
    !INCIDENT_SORT.includes(field as (typeof INCIDENT_SORT)[number]) ||
    !["asc", "desc", undefined].includes(direction)
  ) {
    throw query.invalid(`sort_by must be one of ${INCIDENT_SORT.join(", ")}, with :asc or :desc.`);
  }
  const key = field as (typeof INCIDENT_SORT)[number];
  return account.incidents
    .filter(
      (incident) =>
        all || (Date.parse(incident.created_at) >= since && Date.parse(incident.created_at) < until),
    )
    .filter((incident) => !statuses.length || statuses.includes(incident.status))
    .filter((incident) => !urgencies.length || urgencies.includes(incident.urgency))
    .filter((incident) => !serviceIds.length || serviceIds.includes(incident.service.id))
    .filter((incident) => !teamIds.length || incident.teams?.some((team) => teamIds.includes(team.id)))
    .filter(
      (incident) => !userIds.length || incident.assignments?.some((a) => userIds.includes(a.assignee.id)),
    )
    .sort(
      (a, b) =>
        String(a[key] ?? "").localeCompare(String(b[key] ?? ""), "en", { numeric: true }) *
        (direction === "desc" ? -1 : 1),
    );
}

/** The entry types `is_overview=true` keeps: the changes, not every notification. */
const OVERVIEW_TYPES = new Set([
  "trigger_log_entry",
  "acknowledge_log_entry",
  "resolve_log_entry",
  "escalate_log_entry",
]);

function logEntries(account: PagerAccount, query: Query): PdLogEntry[] {
  const since = query.time("since") ?? Number.NEGATIVE_INFINITY;
  const until = query.time("until") ?? Number.POSITIVE_INFINITY;
  if (until <= since) throw query.invalid("until must be after since.");
  const teamIds = query.list("team_ids");
  const overview = query.bool("is_overview") ?? false;
  const zone = query.zone();
  query.enums("include", ["incidents", "services", "channels", "teams"]);
  return account.logEntries
    .filter((entry) => Date.parse(entry.created_at) >= since && Date.parse(entry.created_at) < until)
    .filter((entry) => !teamIds.length || entry.teams?.some((team) => teamIds.includes(team.id)))
    .filter((entry) => !overview || OVERVIEW_TYPES.has(entry.type))
    .sort((a, b) => b.created_at.localeCompare(a.created_at))
    .map((entry) => ({ ...entry, created_at: query.render(entry.created_at, zone) as string }));
}

function policies(account: PagerAccount, query: Query) {
  const teamIds = query.list("team_ids");
  const userIds = query.list("user_ids");
  query.enums("include", ["services", "teams", "targets", "escalation_rule_assignment_strategies"]);
  return account.policies
    .filter((policy) => query.nameFilter()(policy.name))
    .filter((policy) => !teamIds.length || policy.teams?.some((team) => teamIds.includes(team.id)))
    .filter(
      (policy) =>
        !userIds.length ||
        policy.escalation_rules.some((rule) => rule.targets.some((target) => userIds.includes(target.id))),
    )
    .sort((a, b) => a.name.localeCompare(b.name));
}

function services(account: PagerAccount, query: Query) {
  const teamIds = query.list("team_ids");
  const exact = query.text("name");
  query.enums("include", [
    "escalation_policies",
    "teams",
    "integrations",
    "auto_pause_notifications_parameters",
  ]);
  return account.services
    .filter((service) => query.nameFilter()(service.name) && (exact === undefined || service.name === exact))
    .filter((service) => !teamIds.length || service.teams?.some((team) => teamIds.includes(team.id)))
    .sort((a, b) => a.name.localeCompare(b.name));
}
