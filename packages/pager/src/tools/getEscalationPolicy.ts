import { defineTool, READ_ONLY_HINTS } from "@toolkits/core";
import { z } from "zod";
import { pagerClient } from "../client.js";
import { pagerAuth, SCOPES } from "../params.js";
import { policyRecord, policySchema } from "../records.js";

const scopes = [SCOPES.policies];

export const getEscalationPolicy = defineTool({
  name: "Pager.GetEscalationPolicy",
  title: "Get escalation policy",
  description:
    "Gets one escalation policy: its levels in order (delay, user and schedule targets), repeats, services and teams.",
  input: z.object({ escalation_policy_id: z.string().min(1).describe("From Pager.ListEscalationPolicies") }),
  output: z.object({ escalation_policy: policySchema }),
  hints: READ_ONLY_HINTS,
  auth: pagerAuth(...scopes),
  async handler({ escalation_policy_id }, context) {
    const client = await pagerClient(context, scopes);
    return { escalation_policy: policyRecord(await client.escalationPolicy(escalation_policy_id)) };
  },
});
