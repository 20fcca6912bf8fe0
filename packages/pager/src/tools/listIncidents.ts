import { defineTool, lazy, READ_ONLY_HINTS } from "@toolkits/core";
import { z } from "zod";
import { createPagerClient } from "../client.js";
import {
  checkWindow,
  INCIDENT_WINDOW_DAYS,
  idsParam,
  limitParam,
  offsetParam,
  pageParams,
  pagerAuth,
  SCOPES,
  sinceParam,
  untilParam,
} from "../params.js";
import { incidentRecord, incidentSchema, listOutput, listResult } from "../records.js";

const inputSchema = lazy(() =>
  z.object({
    status: z.enum(["triggered", "acknowledged", "resolved"]).optional(),
    urgency: z.enum(["high", "low"]).optional(),
    service_ids: idsParam("Only these services (Pager.ListServices ids)"),
    team_ids: idsParam("Only these teams (Pager.ListTeams ids)"),
    since: sinceParam("Created at or after, ISO-8601"),
    until: untilParam("Created before, ISO-8601"),
    limit: limitParam(),
    offset: offsetParam(),
  }),
);
const outputSchema = lazy(() => listOutput("incidents", incidentSchema()));

export const listIncidents = defineTool({
  name: "Pager.ListIncidents",
  title: "List incidents",
  description:
    "Lists incidents, newest first, with status, urgency, service, teams and assignees. Without since/until PagerDuty covers only the last 30 days; a window may span up to 6 months.",
  input: inputSchema,
  output: outputSchema,
  hints: READ_ONLY_HINTS,
  auth: pagerAuth(SCOPES.incidents),
  async handler(input, context) {
    checkWindow(input.since, input.until, INCIDENT_WINDOW_DAYS);
    const page = pageParams(input);
    const client = await createPagerClient(context);
    const incidents = await client.incidents({
      ...page,
      statuses: input.status && [input.status],
      urgencies: input.urgency && [input.urgency],
      service_ids: input.service_ids,
      team_ids: input.team_ids,
      since: input.since,
      until: input.until,
      sort_by: "created_at:desc",
    });
    return listResult("incidents", incidents, incidentRecord);
  },
});
