import { defineTool, lazy, READ_ONLY_HINTS } from "@toolkits/core";
import { z } from "zod";
import { createPagerClient } from "../client.js";
import { pagerAuth, SCOPES } from "../params.js";
import { incidentDetail, incidentDetailSchema } from "../records.js";

const inputSchema = lazy(() =>
  z.object({
    incident_id: z.string().min(1).describe("Incident id or number, from Pager.ListIncidents"),
  }),
);
const outputSchema = lazy(() => z.object({ incident: incidentDetailSchema() }));

export const getIncident = defineTool({
  name: "Pager.GetIncident",
  title: "Get incident",
  description:
    "Gets one incident: status, urgency, service, policy, assignees, acknowledgements, alert counts, conference bridge.",
  input: inputSchema,
  output: outputSchema,
  hints: READ_ONLY_HINTS,
  auth: pagerAuth(SCOPES.incidents),
  async handler({ incident_id }, context) {
    const client = await createPagerClient(context);
    return { incident: incidentDetail(await client.incident(incident_id)) };
  },
});
