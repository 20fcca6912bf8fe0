import { defineTool, lazy, READ_ONLY_HINTS } from "@toolkits/core";
import { z } from "zod";
import { collectPages, createPagerClient, type PagerClient } from "../client.js";
import {
  checkWindow,
  idsParam,
  limitParam,
  offsetParam,
  pageParams,
  pagerAuth,
  SCOPES,
  sinceParam,
  timeZoneParam,
  untilParam,
} from "../params.js";
import { listOutput, listResult, onCallRecord, onCallSchema } from "../records.js";

const inputSchema = lazy(() =>
  z.object({
    schedule_ids: idsParam("Only these schedules (Pager.ListSchedules ids)"),
    escalation_policy_ids: idsParam("Only these escalation policies"),
    team_ids: idsParam("Only policies of these teams"),
    time_zone: timeZoneParam(),
    since: sinceParam(),
    until: untilParam(),
    limit: limitParam(),
    offset: offsetParam(),
  }),
);
const outputSchema = lazy(() => listOutput("oncalls", onCallSchema()));

export const listOnCalls = defineTool({
  name: "Pager.ListOnCalls",
  title: "List on-calls",
  description:
    "Lists who is on call: user, escalation policy and level, schedule, shift start and end. Without since/until: now; a window lists every shift overlapping it (up to 90 days ahead).",
  input: inputSchema,
  output: outputSchema,
  hints: READ_ONLY_HINTS,
  auth: pagerAuth(SCOPES.oncalls, SCOPES.policies),
  async handler(input, context) {
    checkWindow(input.since, input.until);
    const page = pageParams(input);
    const client = await createPagerClient(context);
    const policies = await policyFilter(client, input.escalation_policy_ids, input.team_ids);
    if (policies?.length === 0) return { oncalls: [], ...page, more: false };
    const oncalls = await client.onCalls({
      ...page,
      schedule_ids: input.schedule_ids,
      escalation_policy_ids: policies,
      time_zone: input.time_zone,
      since: input.since,
      until: input.until,
    });
    return listResult("oncalls", oncalls, onCallRecord);
  },
});

/**
 * `/oncalls` has no team filter (an unknown parameter would be silently ignored), so teams become
 * their escalation policies, intersected with any policies asked for. Empty means nothing matches.
 */
async function policyFilter(
  client: PagerClient,
  policyIds: string[] | undefined,
  teamIds: string[] | undefined,
): Promise<string[] | undefined> {
  if (!teamIds?.length) return policyIds;
  const { items } = await collectPages((page) => client.escalationPolicies({ ...page, team_ids: teamIds }));
  const ofTeams = items.map((policy) => policy.id);
  return policyIds?.length ? ofTeams.filter((id) => policyIds.includes(id)) : ofTeams;
}
