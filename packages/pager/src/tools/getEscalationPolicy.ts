import { defineTool, lazy, READ_ONLY_HINTS } from "@toolkits/core";
import { z } from "zod";
import { createPagerClient } from "../client.js";
import { pagerAuth, SCOPES } from "../params.js";
import { policyRecord, policySchema } from "../records.js";

const inputSchema = lazy(() =>
  z.object({ escalation_policy_id: z.string().min(1).describe("From Pager.ListEscalationPolicies") }),
);
const outputSchema = lazy(() => z.object({ escalation_policy: policySchema() }));

export const getEscalationPolicy = defineTool({
  name: "Pager.GetEscalationPolicy",
  title: "Get escalation policy",
  description:
    "Gets one escalation policy: its levels in order (delay, user and schedule targets), repeats, services and teams.",
  input: inputSchema,
  output: outputSchema,
  hints: READ_ONLY_HINTS,
  auth: pagerAuth(SCOPES.policies),
  async handler({ escalation_policy_id }, context) {
    const client = await createPagerClient(context);
    return { escalation_policy: policyRecord(await client.escalationPolicy(escalation_policy_id)) };
  },
});
