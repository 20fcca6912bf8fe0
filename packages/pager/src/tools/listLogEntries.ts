import { defineTool, lazy, READ_ONLY_HINTS } from "@toolkits/core";
import { z } from "zod";
import { createPagerClient } from "../client.js";
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
import { listOutput, listResult, logEntryRecord, logEntrySchema } from "../records.js";

const inputSchema = lazy(() =>
  z.object({
    since: sinceParam(),
    until: untilParam(),
    team_ids: idsParam("Only these teams"),
    time_zone: timeZoneParam(),
    is_overview: z.boolean().default(true).describe("Only the key changes; false for every entry"),
    limit: limitParam(),
    offset: offsetParam(),
  }),
);
const outputSchema = lazy(() => listOutput("log_entries", logEntrySchema()));

export const listLogEntries = defineTool({
  name: "Pager.ListLogEntries",
  title: "List log entries",
  description:
    "Lists the account's activity feed as log entries, newest first: incident triggers, notifications, acknowledgements, escalations, resolutions.",
  input: inputSchema,
  output: outputSchema,
  hints: READ_ONLY_HINTS,
  auth: pagerAuth(SCOPES.incidents),
  async handler(input, context) {
    checkWindow(input.since, input.until);
    const page = pageParams(input);
    const client = await createPagerClient(context);
    const entries = await client.logEntries({
      ...page,
      since: input.since,
      until: input.until,
      team_ids: input.team_ids,
      time_zone: input.time_zone,
      is_overview: input.is_overview,
    });
    return listResult("log_entries", entries, logEntryRecord);
  },
});
