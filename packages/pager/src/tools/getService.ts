import { defineTool, lazy, READ_ONLY_HINTS } from "@toolkits/core";
import { z } from "zod";
import { createPagerClient } from "../client.js";
import { pagerAuth, SCOPES } from "../params.js";
import { serviceRecord, serviceSchema } from "../records.js";

const inputSchema = lazy(() =>
  z.object({ service_id: z.string().min(1).describe("From Pager.ListServices") }),
);
const outputSchema = lazy(() => z.object({ service: serviceSchema() }));

export const getService = defineTool({
  name: "Pager.GetService",
  title: "Get service",
  description: "Gets one service: status, escalation policy, teams, timeouts and last incident time.",
  input: inputSchema,
  output: outputSchema,
  hints: READ_ONLY_HINTS,
  auth: pagerAuth(SCOPES.services),
  async handler({ service_id }, context) {
    const client = await createPagerClient(context);
    return { service: serviceRecord(await client.service(service_id)) };
  },
});
