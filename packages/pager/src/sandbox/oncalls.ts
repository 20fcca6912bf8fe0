import type { PdOnCall, PdReference } from "../types.js";
import type { PagerAccount, Rotation } from "./account.js";
import { reference } from "./account.js";

export interface OnCallFilter {
  /** Epoch milliseconds; equal for "at this instant". */
  since: number;
  until: number;
  userIds: string[];
  scheduleIds: string[];
  policyIds: string[];
  earliest: boolean;
}

/** A shift as epoch milliseconds; undefined bounds mean a permanent on-call (a direct target). */
interface Shift {
  userId: string;
  start?: number;
  end?: number;
}

/**
 * The on-call entries PagerDuty's `/oncalls` would give: every escalation level's shifts that
 * overlap [since, until] (or contain the instant when they are equal), filtered, ordered by
 * policy, level and start. With `earliest`, only the first per user, policy and level.
 */
export function onCallEntries(account: PagerAccount, filter: OnCallFilter): PdOnCall[] {
  const entries: PdOnCall[] = [];
  for (const policy of account.policies) {
    if (filter.policyIds.length && !filter.policyIds.includes(policy.id)) continue;
    policy.escalation_rules.forEach((rule, level) => {
      for (const target of rule.targets) {
        const schedule = target.type.startsWith("schedule") ? target : undefined;
        if (filter.scheduleIds.length && !(schedule && filter.scheduleIds.includes(schedule.id))) continue;
        const shifts = schedule ? shiftsOf(account, schedule, filter) : [{ userId: target.id }];
        const picked = shifts.filter(
          (shift) => !filter.userIds.length || filter.userIds.includes(shift.userId),
        );
        for (const shift of filter.earliest ? firstPerUser(picked) : picked) {
          entries.push({
            user: reference("user", account.users.find((u) => u.id === shift.userId) ?? { id: shift.userId }),
            schedule: schedule ?? null,
            escalation_policy: reference("escalation_policy", policy),
            escalation_level: level + 1,
            start: shift.start === undefined ? null : iso(shift.start),
            end: shift.end === undefined ? null : iso(shift.end),
          });
        }
      }
    });
  }
  return entries;
}

function shiftsOf(account: PagerAccount, schedule: PdReference, filter: OnCallFilter): Shift[] {
  const rotation = account.rotations.get(schedule.id) as Rotation;
  const { turnMs, virtualStart, userIds } = rotation;
  const first = Math.floor((filter.since - virtualStart) / turnMs);
  const shifts: Shift[] = [];
  for (let k = first; virtualStart + k * turnMs <= filter.until; k++) {
    const start = virtualStart + k * turnMs;
    const end = start + turnMs;
    const overlaps =
      filter.since === filter.until
        ? start <= filter.since && filter.since < end
        : end > filter.since && start < filter.until;
    if (overlaps)
      shifts.push({
        userId: userIds[((k % userIds.length) + userIds.length) % userIds.length] as string,
        start,
        end,
      });
  }
  return shifts;
}

function firstPerUser(shifts: Shift[]): Shift[] {
  const seen = new Set<string>();
  return shifts.filter((shift) => !seen.has(shift.userId) && seen.add(shift.userId));
}

const iso = (ms: number) => new Date(ms).toISOString().replace(".000", "");
