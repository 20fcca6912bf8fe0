import type {
  IncidentStatus,
  PdEscalationPolicy,
  PdIncident,
  PdLogEntry,
  PdReference,
  PdSchedule,
  PdService,
  PdTeam,
  PdUser,
  TeamRole,
} from "../types.js";
import {
  FIRST_NAMES,
  INCIDENT_TITLES,
  JOB_TITLES,
  LAST_NAMES,
  SERVICES,
  TEAMS,
  TIME_ZONES,
} from "./names.js";
import { type Random, seeded } from "./random.js";

/** Upstream objects carry far more than the toolkit reads; the sandbox serves them whole. */
type Full<T> = T & Record<string, unknown>;

export const API_HOST = "https://api.pagerduty.com";
const WEB_HOST = "https://acme.pagerduty.com";
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** A schedule's rotation: shift k starts at `virtualStart + k × turn` and goes to `userIds[k mod n]`. */
export interface Rotation {
  userIds: string[];
  turnMs: number;
  virtualStart: number;
}

export interface Membership {
  teamId: string;
  userId: string;
  role: TeamRole;
}

/** The sandbox's in-memory PagerDuty account. Times are epoch milliseconds unless ISO strings. */
export interface PagerAccount {
  /** The instant the account was built around (now, to the hour, unless pinned). */
  now: number;
  /** The user the sandbox token belongs to (`GET /users/me`). */
  me: Full<PdUser>;
  users: Full<PdUser>[];
  teams: Full<PdTeam>[];
  memberships: Membership[];
  services: Full<PdService>[];
  policies: Full<PdEscalationPolicy>[];
  schedules: Full<PdSchedule>[];
  rotations: Map<string, Rotation>;
  incidents: Full<PdIncident>[];
  logEntries: Full<PdLogEntry>[];
}

export interface AccountOptions {
  /** Users in the directory (default 40; the first 40 are the ones on teams). */
  users?: number;
  /** The account's "now" (default: the current time, to the hour). */
  now?: Date | string | number;
  /** Seed of the generated data (default 1). */
  seed?: number;
  /** Incidents to generate (default 60). */
  incidents?: number;
}

const TEAM_SIZE = 8;

/** Builds a fresh, deterministic account: the same options give the same data. */
export function buildAccount(options: AccountOptions = {}): PagerAccount {
  const random = seeded(options.seed ?? 1);
  const now =
    options.now === undefined ? Math.floor(Date.now() / HOUR_MS) * HOUR_MS : new Date(options.now).getTime();
  const teams = TEAMS.map((team, index) => teamObject(index, team.name, team.description));
  const users = Array.from({ length: Math.max(options.users ?? 40, TEAMS.length * TEAM_SIZE) }, (_, index) =>
    userObject(index, random),
  );
  const memberships = teams.flatMap((team, t) =>
    users.slice(t * TEAM_SIZE, (t + 1) * TEAM_SIZE).map((user, i) => ({
      teamId: team.id,
      userId: user.id,
      role: (i === 1 ? "manager" : i === TEAM_SIZE - 1 ? "observer" : "responder") as TeamRole,
    })),
  );
  // "me" (user 0) is also a responder on Platform, so two rotations give them shifts.
  memberships.push({ teamId: teams[1]?.id as string, userId: users[0]?.id as string, role: "responder" });
  for (const user of users) user.teams = teamsOf(user.id, memberships, teams);
  const { schedules, rotations } = buildSchedules(teams, users, memberships, now);
  const policies = teams.map((team, t) =>
    policyObject(t, team, schedules[t] as Full<PdSchedule>, managerOf(team, memberships, users)),
  );
  schedules.forEach((schedule, t) => {
    schedule.escalation_policies = [reference("escalation_policy", policies[t] as PdEscalationPolicy)];
  });
  const services = SERVICES.map((service, index) =>
    serviceObject(
      index,
      service.name,
      teams[service.team] as PdTeam,
      policies[service.team] as PdEscalationPolicy,
    ),
  );
  for (const policy of policies) {
    policy.services = services
      .filter((service) => service.escalation_policy?.id === policy.id)
      .map((service) => reference("service", service));
  }
  const incidents = Array.from({ length: options.incidents ?? 60 }, (_, index) =>
    incidentObject(index, random, now, services, policies, users, memberships),
  ).sort((a, b) => a.created_at.localeCompare(b.created_at));
  for (const service of services) {
    const last = incidents.filter((incident) => incident.service.id === service.id).at(-1);
    service.last_incident_timestamp = last?.created_at ?? null;
  }
  return {
    now,
    me: users[0] as Full<PdUser>,
    users,
    teams,
    memberships,
    services,
    policies,
    schedules,
    rotations,
    incidents,
    logEntries: incidents.flatMap((incident) => logEntriesOf(incident, random)),
  };
}

/** PagerDuty-style ids: `P`, a letter per kind, and the index in base 36. */
const id = (kind: string, index: number) => `P${kind}${index.toString(36).toUpperCase().padStart(5, "0")}`;

const WEB_PATHS: Record<string, string> = { service: "service-directory" };

/** A `<type>_reference` to any object, as PagerDuty embeds them. */
export function reference(type: string, target: { id: string; summary?: string | null }): PdReference {
  const plural = `${type}s`.replace(/ys$/, "ies");
  return {
    id: target.id,
    type: `${type}_reference`,
    summary: target.summary ?? null,
    self: `${API_HOST}/${plural}/${target.id}`,
    html_url: `${WEB_HOST}/${WEB_PATHS[type] ?? plural}/${target.id}`,
  };
}

function base(type: string, objectId: string, summary: string) {
  const ref = reference(type, { id: objectId, summary });
  return { id: objectId, type, summary, self: ref.self, html_url: ref.html_url };
}

function teamObject(index: number, name: string, description: string): Full<PdTeam> {
  return { ...base("team", id("T", index), name), name, description, default_role: "manager", parent: null };
}

function userObject(index: number, random: Random): Full<PdUser> {
  const first = FIRST_NAMES[index % FIRST_NAMES.length] as string;
  const round = Math.floor(index / FIRST_NAMES.length);
  // Walks the last names so neighbours differ and every first/last pair occurs once per 10,000.
  const last = LAST_NAMES[(37 * (index % FIRST_NAMES.length) + round) % LAST_NAMES.length] as string;
  const extra =
    index >= FIRST_NAMES.length * LAST_NAMES.length ? ` ${Math.floor(round / LAST_NAMES.length)}` : "";
  const name = `${first} ${last}${extra}`;
  const userId = id("U", index);
  return {
    ...base("user", userId, name),
    name,
    email: `${name.toLowerCase().replace(/ /g, ".")}@acme.example`,
    time_zone: random.pick(TIME_ZONES),
    color: random.pick(["green", "purple", "teal", "orange", "red"]),
    role: index === 0 ? "admin" : random.pick(["user", "user", "user", "limited_user", "observer"]),
    avatar_url: `https://secure.gravatar.com/avatar/${userId.toLowerCase()}.png?d=mm&r=PG`,
    description: null,
    invitation_sent: false,
    job_title: random.pick(JOB_TITLES),
    created_via_sso: false,
    billed: true,
    contact_methods: [
      { ...reference("email_contact_method", { id: id("C", index), summary: "Default" }), html_url: null },
    ],
    notification_rules: [
      {
        ...reference("assignment_notification_rule", { id: id("N", index), summary: "0 minutes: channel P" }),
      },
    ],
    teams: [],
    coordinated_incidents: [],
    license: { id: "PLICNSE", type: "license_reference", summary: "Full User", self: null, html_url: null },
  };
}

function teamsOf(userId: string, memberships: Membership[], teams: PdTeam[]): PdReference[] {
  return memberships
    .filter((membership) => membership.userId === userId)
    .map((membership) => reference("team", teams.find((team) => team.id === membership.teamId) as PdTeam));
}

function managerOf(team: PdTeam, memberships: Membership[], users: PdUser[]): PdUser {
  const manager = memberships.find((m) => m.teamId === team.id && m.role === "manager");
  return users.find((user) => user.id === manager?.userId) as PdUser;
}

/**
 * One schedule per team rotating through its responders: Payments daily with "me" on call from
 * the start of today, Platform weekly with "me" next up in three days, the rest daily or 12-hourly.
 */
function buildSchedules(teams: PdTeam[], users: PdUser[], memberships: Membership[], now: number) {
  const rotations = new Map<string, Rotation>();
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const schedules = teams.map((team, t) => {
    const responders = memberships
      .filter((m) => m.teamId === team.id && m.role === "responder")
      .map((m) => m.userId);
    const scheduleId = id("S", t);
    const name = `${team.name} Primary`;
    const rotation: Rotation =
      t === 1
        ? {
            userIds: [users[0]?.id as string, ...responders.filter((u) => u !== users[0]?.id)],
            turnMs: 7 * DAY_MS,
            virtualStart: today + 3 * DAY_MS,
          }
        : { userIds: responders, turnMs: t % 2 ? 12 * HOUR_MS : DAY_MS, virtualStart: today };
    rotations.set(scheduleId, rotation);
    const schedule: Full<PdSchedule> = {
      ...base("schedule", scheduleId, name),
      name,
      time_zone: TIME_ZONES[t % TIME_ZONES.length] as string,
      description: `Primary on-call rotation for ${team.name}`,
      escalation_policies: [],
      users: rotation.userIds.map((userId) =>
        reference("user", users.find((u) => u.id === userId) as PdUser),
      ),
      teams: [reference("team", team)],
    };
    return schedule;
  });
  return { schedules, rotations };
}

function policyObject(
  index: number,
  team: PdTeam,
  schedule: PdSchedule,
  manager: PdUser,
): Full<PdEscalationPolicy> {
  const policyId = id("E", index);
  const name = `${team.name} Escalation`;
  return {
    ...base("escalation_policy", policyId, name),
    name,
    description: `Pages ${schedule.name}, then the ${team.name} manager`,
    on_call_handoff_notifications: "if_has_services",
    num_loops: index % 3,
    escalation_rules: [
      { id: id("R", index * 2), escalation_delay_in_minutes: 15, targets: [reference("schedule", schedule)] },
      { id: id("R", index * 2 + 1), escalation_delay_in_minutes: 30, targets: [reference("user", manager)] },
    ],
    services: [],
    teams: [reference("team", team)],
  };
}

function serviceObject(
  index: number,
  name: string,
  team: PdTeam,
  policy: PdEscalationPolicy,
): Full<PdService> {
  const serviceId = id("V", index);
  return {
    ...base("service", serviceId, name),
    name,
    description: `${name}, owned by ${team.name}`,
    auto_resolve_timeout: 14400,
    acknowledgement_timeout: 1800,
    created_at: "2023-03-14T10:00:00Z",
    status: index === 6 ? "disabled" : index % 4 === 1 ? "warning" : "active",
    last_incident_timestamp: null,
    alert_creation: "create_alerts_and_incidents",
    alert_grouping_parameters: { type: "intelligent" },
    integrations: [
      {
        id: id("I", index),
        type: "generic_events_api_inbound_integration_reference",
        summary: "Events API v2",
        self: `${API_HOST}/services/${serviceId}/integrations/${id("I", index)}`,
        html_url: `${WEB_HOST}/services/${serviceId}/integrations/${id("I", index)}`,
      },
    ],
    escalation_policy: reference("escalation_policy", policy),
    teams: [reference("team", team)],
    incident_urgency_rule: { type: "constant", urgency: "high" },
    support_hours: null,
    scheduled_actions: [],
    auto_pause_notifications_parameters: { enabled: false, timeout: null },
  };
}

function incidentObject(
  index: number,
  random: Random,
  now: number,
  services: PdService[],
  policies: PdEscalationPolicy[],
  users: PdUser[],
  memberships: Membership[],
): Full<PdIncident> {
  const service = random.pick(services);
  const policy = policies.find((p) => p.id === service.escalation_policy?.id) as PdEscalationPolicy;
  const team = service.teams?.[0] as PdReference;
  const created = now - random.int(10, 50 * 24 * 60) * 60_000;
  const age = now - created;
  const status: IncidentStatus =
    age > 3 * DAY_MS ? "resolved" : random.pick(["triggered", "acknowledged", "resolved"] as const);
  const responders = memberships.filter((m) => m.teamId === team.id && m.role !== "observer");
  const responderId = random.pick(responders).userId;
  const responder = users.find((user) => user.id === responderId) as PdUser;
  const number = 1001 + index;
  const title = random.pick(INCIDENT_TITLES).replace("{service}", service.name);
  const incidentId = id("Q", index);
  const at = (minutes: number) => new Date(created + minutes * 60_000).toISOString().replace(".000", "");
  const acknowledged = status !== "triggered";
  const changedAt =
    status === "resolved" ? at(random.int(20, 240)) : acknowledged ? at(random.int(2, 15)) : at(0);
  const who = reference("user", responder);
  const logEntryId = id("L", index * 10);
  const priority = {
    ...reference("priority", { id: `PPRI00${index % 4}`, summary: `P${1 + (index % 4)}` }),
    type: "priority",
    html_url: null,
    name: `P${1 + (index % 4)}`,
    description: "",
    color: "a8171c",
  };

  return {
    ...base("incident", incidentId, `[#${number}] ${title}`),
    incident_number: number,
    title,
    description: title,
    created_at: at(0),
    updated_at: changedAt,
    status,
    incident_key: `${incidentId.toLowerCase()}${number.toString(16)}a7c3e9d1f0b24c6e`,
    service: reference("service", service),
    assignments: status === "resolved" ? [] : [{ at: at(0), assignee: who }],
    assigned_via: "escalation_policy",
    last_status_change_at: changedAt,
    resolved_at: status === "resolved" ? changedAt : null,
    first_trigger_log_entry: {
      ...reference("trigger_log_entry", { id: logEntryId, summary: "Triggered through the API." }),
      self: `${API_HOST}/log_entries/${logEntryId}?incident_id=${incidentId}`,
      html_url: `${WEB_HOST}/incidents/${incidentId}/log_entries/${logEntryId}`,
    },
    alert_counts: {
      all: 1 + (index % 3),
      triggered: status === "resolved" ? 0 : 1,
      resolved: status === "resolved" ? 1 + (index % 3) : index % 3,
    },
    is_mergeable: true,
    incident_type: { name: "incident_default" },
    escalation_policy: reference("escalation_policy", policy),
    teams: [team],
    pending_actions:
      status === "resolved" ? [] : [{ type: "resolve", at: new Date(created + 4 * HOUR_MS).toISOString() }],
    acknowledgements: acknowledged ? [{ at: at(2), acknowledger: who }] : [],
    alert_grouping: {
      grouping_type: "intelligent",
      started_at: at(0),
      ended_at: null,
      alert_grouping_active: true,
    },
    last_status_change_by: acknowledged ? who : reference("service", service),
    priority,
    resolve_reason: null,
    conference_bridge:
      random.chance(0.3) && status !== "resolved"
        ? {
            conference_number: "+1-415-555-0100,,,,4412#",
            conference_url: `https://meet.acme.example/${incidentId}`,
          }
        : null,
    incidents_responders: [],
    responder_requests: [],
    subscriber_requests: [],
    urgency: random.chance(0.6) ? "high" : "low",
  };
}

function logEntriesOf(incident: Full<PdIncident>, random: Random): Full<PdLogEntry>[] {
  const incidentRef = reference("incident", incident);
  const start = Date.parse(incident.created_at);
  const index = Number.parseInt(incident.id.slice(2), 36);
  const entry = (
    n: number,
    kind: string,
    minutes: number,
    agent: PdReference,
    summary: string,
    channel: string,
  ) => {
    const entryId = id("L", index * 10 + n);
    return {
      id: entryId,
      type: `${kind}_log_entry`,
      summary,
      self: `${API_HOST}/log_entries/${entryId}`,
      html_url: `${WEB_HOST}/incidents/${incident.id}/log_entries/${entryId}`,
      created_at: new Date(start + minutes * 60_000).toISOString().replace(".000", ""),
      agent,
      channel: { type: channel },
      service: incident.service,
      incident: incidentRef,
      teams: incident.teams ?? [],
      contexts: [],
      event_details: { description: incident.title },
    } satisfies Full<PdLogEntry>;
  };
  const who = incident.acknowledgements?.[0]?.acknowledger ?? incident.assignments?.[0]?.assignee;
  const entries = [entry(0, "trigger", 0, incident.service, "Triggered through the API.", "api")];
  if (who) entries.push(entry(1, "notify", 1, who, `Notified ${who.summary} by push notification.`, "auto"));
  if (incident.status !== "triggered" && who) {
    entries.push(
      entry(2, "acknowledge", 2, who, `Acknowledged by ${who.summary}.`, random.pick(["mobile", "website"])),
    );
  }
  if (incident.status === "resolved" && incident.resolved_at) {
    const minutes = (Date.parse(incident.resolved_at) - start) / 60_000;
    entries.push(
      entry(3, "resolve", minutes, who ?? incident.service, "Resolved.", who ? "website" : "auto"),
    );
  }
  return entries;
}
