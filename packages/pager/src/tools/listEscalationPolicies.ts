import { defineTool, lazy, READ_ONLY_HINTS } from "@toolkits/core";
import { z } from "zod";
import { createPagerClient } from "../client.js";
import { limitParam, offsetParam, pageParams, pagerAuth, SCOPES } from "../params.js";
import { listOutput, listResult, policyRecord, policySchema } from "../records.js";

const inputSchema = lazy(() => z.object({ limit: limitParam(), offset: offsetParam() }));
const outputSchema = lazy(() => listOutput("escalation_policies", policySchema()));

export const listEscalationPolicies = defineTool({
  name: "Pager.ListEscalationPolicies",
  title: "List escalation policies",
  description:
    "Lists escalation policies by name, each with its levels (delay and targets), services and teams.",
  input: inputSchema,
  output: outputSchema,
  hints: READ_ONLY_HINTS,
  auth: pagerAuth(SCOPES.policies),
  async handler(input, context) {
    const page = pageParams(input);
    const client = await createPagerClient(context);
    return listResult("escalation_policies", await client.escalationPolicies(page), policyRecord);
  },
});
