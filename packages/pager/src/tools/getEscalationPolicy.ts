import { defineTool, READ_ONLY_HINTS } from "@toolkits/core";
import { z } from "zod";
import { createPagerClient } from "../client.js";
import { pagerAuth, SCOPES } from "../params.js";
import { policyRecord, policySchema } from "../records.js";

export const getEscalationPolicy = defineTool({
  name: "Pager.GetEscalationPolicy",
  title: "Get escalation policy",
  description:
    "Gets one escalation policy: its levels in order (delay, user and schedule targets), repeats, services and teams.",
  input: z.object({ escalation_policy_id: z.string().min(1).describe("From Pager.ListEscalationPolicies") }),
  output: z.object({ escalation_policy: policySchema }),
  hints: READ_ONLY_HINTS,
  auth: pagerAuth(SCOPES.policies),
  async handler({ escalation_policy_id }, context) {
    const client = await createPagerClient(context);
    return { escalation_policy: policyRecord(await client.escalationPolicy(escalation_policy_id)) };
  },
});
