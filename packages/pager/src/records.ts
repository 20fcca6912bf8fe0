import { lazy, offsetPage, offsetPageShape } from "@toolkits/core";
import { z } from "zod";
import type { Page } from "./client.js";
import type {
  PdEscalationPolicy,
  PdIncident,
  PdLogEntry,
  PdOnCall,
  PdReference,
  PdSchedule,
  PdService,
  PdTeam,
  PdTeamMember,
  PdUser,
} from "./types.js";

// Compact records: what an on-call engineer or a model acts on, without PagerDuty's `self`, `type`
// and summary duplication. Null fields are dropped later by core's compact(). Each schema is built
// on first use (`lazy`), with the schemas of the first tool called, not as the toolkit loads.

export const refSchema = lazy(() => z.object({ id: z.string(), name: z.string().optional() }));
export type Ref = z.infer<ReturnType<typeof refSchema>>;

export const ref = (value: PdReference | null | undefined): Ref | undefined =>
  value ? { id: value.id, name: value.summary ?? undefined } : undefined;
export const refs = (values: readonly PdReference[] | undefined): Ref[] =>
  (values ?? []).map((v) => ref(v) as Ref);

const optionalString = lazy(() => z.string().optional());

export const incidentSchema = lazy(() =>
  z.object({
    id: z.string(),
    number: z.number().int(),
    title: z.string(),
    status: z.enum(["triggered", "acknowledged", "resolved"]),
    urgency: z.enum(["high", "low"]),
    priority: optionalString(),
    created_at: z.string(),
    last_status_change_at: optionalString(),
    resolved_at: optionalString(),
    service: refSchema(),
    escalation_policy: refSchema().optional(),
    teams: z.array(refSchema()),
    assignees: z.array(refSchema()),
    html_url: optionalString(),
  }),
);

export function incidentRecord(incident: PdIncident): z.input<ReturnType<typeof incidentSchema>> {
  return {
    id: incident.id,
    number: incident.incident_number,
    title: incident.title,
    status: incident.status,
    urgency: incident.urgency,
    priority: incident.priority?.summary ?? undefined,
    created_at: incident.created_at,
    last_status_change_at: incident.last_status_change_at ?? undefined,
    resolved_at: incident.resolved_at ?? undefined,
    service: ref(incident.service) as Ref,
    escalation_policy: ref(incident.escalation_policy),
    teams: refs(incident.teams),
    assignees: refs(incident.assignments?.map((a) => a.assignee)),
    html_url: incident.html_url ?? undefined,
  };
}

export const incidentDetailSchema = lazy(() =>
  incidentSchema().extend({
    incident_key: optionalString(),
    alert_counts: z.object({ all: z.number(), triggered: z.number(), resolved: z.number() }).optional(),
    acknowledged_by: z.array(refSchema().extend({ at: z.string() })),
    last_status_change_by: refSchema().optional(),
    conference_url: optionalString(),
    conference_number: optionalString(),
  }),
);

export function incidentDetail(incident: PdIncident): z.input<ReturnType<typeof incidentDetailSchema>> {
  return {
    ...incidentRecord(incident),
    incident_key: incident.incident_key ?? undefined,
    alert_counts: incident.alert_counts,
    acknowledged_by: (incident.acknowledgements ?? []).map((a) => ({
      ...(ref(a.acknowledger) as Ref),
      at: a.at,
    })),
    last_status_change_by: ref(incident.last_status_change_by),
    conference_url: incident.conference_bridge?.conference_url ?? undefined,
    conference_number: incident.conference_bridge?.conference_number ?? undefined,
  };
}

export const logEntrySchema = lazy(() =>
  z.object({
    id: z.string(),
    type: z.string(),
    summary: optionalString(),
    created_at: z.string(),
    agent: refSchema().optional(),
    channel: optionalString(),
    incident: refSchema().optional(),
    service: refSchema().optional(),
    teams: z.array(refSchema()),
  }),
);

export function logEntryRecord(entry: PdLogEntry): z.input<ReturnType<typeof logEntrySchema>> {
  return {
    id: entry.id,
    type: entry.type.replace(/_log_entry$/, ""),
    summary: entry.summary ?? undefined,
    created_at: entry.created_at,
    agent: ref(entry.agent),
    channel: entry.channel?.type,
    incident: ref(entry.incident),
    service: ref(entry.service),
    teams: refs(entry.teams),
  };
}

const targetSchema = lazy(() => refSchema().extend({ kind: z.enum(["user", "schedule"]) }));

export const policySchema = lazy(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    description: optionalString(),
    repeats: z.number().int().optional().describe("Times the rules repeat when nobody acknowledges"),
    rules: z.array(
      z.object({
        level: z.number().int().describe("1-based escalation level"),
        delay_minutes: z.number().describe("Minutes before escalating to the next level"),
        targets: z.array(targetSchema()),
      }),
    ),
    services: z.array(refSchema()),
    teams: z.array(refSchema()),
    html_url: optionalString(),
  }),
);

export function policyRecord(policy: PdEscalationPolicy): z.input<ReturnType<typeof policySchema>> {
  return {
    id: policy.id,
    name: policy.name,
    description: policy.description ?? undefined,
    repeats: policy.num_loops,
    rules: policy.escalation_rules.map((rule, index) => ({
      level: index + 1,
      delay_minutes: rule.escalation_delay_in_minutes,
      targets: rule.targets.map((target) => ({
        ...(ref(target) as Ref),
        kind: target.type.startsWith("schedule") ? ("schedule" as const) : ("user" as const),
      })),
    })),
    services: refs(policy.services),
    teams: refs(policy.teams),
    html_url: policy.html_url ?? undefined,
  };
}

export const serviceSchema = lazy(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    description: optionalString(),
    status: optionalString(),
    escalation_policy: refSchema().optional(),
    teams: z.array(refSchema()),
    last_incident_at: optionalString(),
    acknowledgement_timeout_s: z.number().optional(),
    auto_resolve_timeout_s: z.number().optional(),
    html_url: optionalString(),
  }),
);

export function serviceRecord(service: PdService): z.input<ReturnType<typeof serviceSchema>> {
  return {
    id: service.id,
    name: service.name,
    description: service.description ?? undefined,
    status: service.status,
    escalation_policy: ref(service.escalation_policy),
    teams: refs(service.teams),
    last_incident_at: service.last_incident_timestamp ?? undefined,
    acknowledgement_timeout_s: service.acknowledgement_timeout ?? undefined,
    auto_resolve_timeout_s: service.auto_resolve_timeout ?? undefined,
    html_url: service.html_url ?? undefined,
  };
}

export const scheduleSchema = lazy(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    description: optionalString(),
    time_zone: z.string(),
    escalation_policies: z.array(refSchema()),
    rotation_members: z
      .array(refSchema())
      .describe("Everyone in the rotations, NOT who is on call now (see Pager.ListOnCalls)"),
    html_url: optionalString(),
  }),
);

export function scheduleRecord(schedule: PdSchedule): z.input<ReturnType<typeof scheduleSchema>> {
  return {
    id: schedule.id,
    name: schedule.name,
    description: schedule.description ?? undefined,
    time_zone: schedule.time_zone,
    escalation_policies: refs(schedule.escalation_policies),
    rotation_members: refs(schedule.users),
    html_url: schedule.html_url ?? undefined,
  };
}

export const onCallSchema = lazy(() =>
  z.object({
    user: refSchema(),
    escalation_policy: refSchema(),
    level: z.number().int(),
    schedule: refSchema().optional().describe("Absent when the user is a direct target of the policy"),
    start: optionalString().describe("Absent for a permanent on-call"),
    end: optionalString(),
  }),
);

export function onCallRecord(entry: PdOnCall): z.input<ReturnType<typeof onCallSchema>> {
  return {
    user: ref(entry.user) as Ref,
    escalation_policy: ref(entry.escalation_policy) as Ref,
    level: entry.escalation_level,
    schedule: ref(entry.schedule),
    start: entry.start ?? undefined,
    end: entry.end ?? undefined,
  };
}

export const userSchema = lazy(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    email: z.string(),
    role: optionalString(),
    job_title: optionalString(),
    time_zone: optionalString(),
    teams: z.array(refSchema()),
    html_url: optionalString(),
  }),
);

export function userRecord(user: PdUser): z.input<ReturnType<typeof userSchema>> {
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    role: user.role,
    job_title: user.job_title ?? undefined,
    time_zone: user.time_zone,
    teams: (user.teams ?? []).map((team) => ({ id: team.id, name: team.name ?? team.summary ?? undefined })),
    html_url: user.html_url ?? undefined,
  };
}

export const teamSchema = lazy(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    description: optionalString(),
    html_url: optionalString(),
  }),
);

export function teamRecord(team: PdTeam): z.input<ReturnType<typeof teamSchema>> {
  return {
    id: team.id,
    name: team.name,
    description: team.description ?? undefined,
    html_url: team.html_url ?? undefined,
  };
}

export const memberSchema = lazy(() =>
  refSchema().extend({
    email: optionalString(),
    role: z.enum(["observer", "responder", "manager"]),
  }),
);

export function memberRecord(member: PdTeamMember): z.input<ReturnType<typeof memberSchema>> {
  return {
    id: member.user.id,
    name: member.user.name ?? member.user.summary ?? undefined,
    email: member.user.email,
    role: member.role,
  };
}

/** The list result: `key` holds the records, plus core's paging fields. */
export function listOutput<K extends string, S extends z.ZodType>(key: K, item: S) {
  return z.object({ [key]: z.array(item), ...offsetPageShape } as {
    [P in K]: z.ZodArray<S>;
  } & typeof offsetPageShape);
}

/** A list result from a page: the mapped records and the paging fields. */
export function listResult<K extends string, T, R>(key: K, page: Page<T>, map: (item: T) => R) {
  const records = page.items.map(map);
  const paging = offsetPage({
    limit: page.limit,
    offset: page.offset,
    more: page.more,
    count: records.length,
  });
  return { [key]: records, ...paging } as { [P in K]: R[] } & typeof paging;
}
