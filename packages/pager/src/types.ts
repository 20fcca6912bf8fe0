/**
 * The parts of PagerDuty REST API v2 objects that this toolkit reads. Upstream objects carry many
 * more fields; see `vendor/pagerduty-openapi.json` for the full shapes.
 */

export type IncidentStatus = "triggered" | "acknowledged" | "resolved";
export type Urgency = "high" | "low";
export type TeamRole = "observer" | "responder" | "manager";

/** A reference to another object: `{id, type: "user_reference", summary, self, html_url}`. */
export interface PdReference {
  id: string;
  type: string;
  /** The referenced object's name (for incidents, `[#number] title`). */
  summary?: string | null;
  self?: string | null;
  html_url?: string | null;
}

export interface PdIncident extends PdReference {
  incident_number: number;
  title: string;
  status: IncidentStatus;
  urgency: Urgency;
  /** ISO-8601 times. */
  created_at: string;
  updated_at?: string | null;
  last_status_change_at?: string | null;
  resolved_at?: string | null;
  incident_key?: string | null;
  service: PdReference;
  escalation_policy?: PdReference | null;
  teams?: PdReference[];
  assignments?: { at: string; assignee: PdReference }[];
  acknowledgements?: { at: string; acknowledger: PdReference }[];
  last_status_change_by?: PdReference | null;
  priority?: PdReference | null;
  alert_counts?: { all: number; triggered: number; resolved: number };
  conference_bridge?: { conference_number?: string | null; conference_url?: string | null } | null;
  resolve_reason?: { type: string; incident?: PdReference } | null;
}

export interface PdLogEntry extends PdReference {
  created_at: string;
  agent?: PdReference | null;
  channel?: { type: string; summary?: string | null } | null;
  incident?: PdReference | null;
  service?: PdReference | null;
  teams?: PdReference[];
}

export interface PdEscalationRule {
  id: string;
  escalation_delay_in_minutes: number;
  targets: PdReference[];
}

export interface PdEscalationPolicy extends PdReference {
  name: string;
  description?: string | null;
  num_loops?: number;
  on_call_handoff_notifications?: string;
  escalation_rules: PdEscalationRule[];
  services?: PdReference[];
  teams?: PdReference[];
}

export interface PdService extends PdReference {
  name: string;
  description?: string | null;
  status?: string;
  created_at?: string;
  last_incident_timestamp?: string | null;
  acknowledgement_timeout?: number | null;
  auto_resolve_timeout?: number | null;
  escalation_policy?: PdReference | null;
  teams?: PdReference[];
}

export interface PdSchedule extends PdReference {
  name: string;
  description?: string | null;
  time_zone: string;
  escalation_policies?: PdReference[];
  /** Everyone in the schedule's rotations: not who is on call now. */
  users?: PdReference[];
  teams?: PdReference[];
}

export interface PdOnCall {
  user: PdReference;
  /** Null when the user is a direct target of the escalation policy. */
  schedule?: PdReference | null;
  escalation_policy: PdReference;
  escalation_level: number;
  /** Null for a permanent on-call (a direct target). */
  start?: string | null;
  end?: string | null;
}

export interface PdUser extends PdReference {
  name: string;
  email: string;
  role?: string;
  job_title?: string | null;
  time_zone?: string;
  description?: string | null;
  /** References, or full team objects with `include[]=teams`. */
  teams?: (PdReference & { name?: string })[];
}

export interface PdTeam extends PdReference {
  name: string;
  description?: string | null;
  default_role?: TeamRole;
}

export interface PdTeamMember {
  /** A reference, or the full user with `include[]=users`. */
  user: PdReference & Partial<Pick<PdUser, "name" | "email">>;
  role: TeamRole;
}

/** PagerDuty's list envelope. `total` is null unless `total=true` was sent. */
export interface PdList {
  limit: number;
  offset: number;
  more: boolean;
  total?: number | null;
}

/** PagerDuty's error body. */
export interface PdError {
  error: { message: string; code?: number; errors?: string[] };
}
