import { defineTool, lazy, READ_ONLY_HINTS } from "@toolkits/core";
import { z } from "zod";
import { createPagerClient } from "../client.js";
import { limitParam, offsetParam, pageParams, pagerAuth, SCOPES, timeZoneParam } from "../params.js";
import { listOutput, listResult, scheduleRecord, scheduleSchema } from "../records.js";

const inputSchema = lazy(() =>
  z.object({ limit: limitParam(), offset: offsetParam(), time_zone: timeZoneParam() }),
);
const outputSchema = lazy(() => listOutput("schedules", scheduleSchema()));

export const listSchedules = defineTool({
  name: "Pager.ListSchedules",
  title: "List schedules",
  description:
    "Lists on-call schedules with their rotation members and escalation policies. Rotation members are not who is on call now: use Pager.ListOnCalls with schedule_ids for that.",
  input: inputSchema,
  output: outputSchema,
  hints: READ_ONLY_HINTS,
  auth: pagerAuth(SCOPES.schedules),
  async handler(input, context) {
    const page = pageParams(input);
    const client = await createPagerClient(context);
    const schedules = await client.schedules({ ...page, time_zone: input.time_zone });
    return listResult("schedules", schedules, scheduleRecord);
  },
});
