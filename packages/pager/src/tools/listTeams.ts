import { defineTool, lazy, READ_ONLY_HINTS } from "@toolkits/core";
import { z } from "zod";
import { createPagerClient } from "../client.js";
import { limitParam, offsetParam, pageParams, pagerAuth, SCOPES } from "../params.js";
import { listOutput, listResult, teamRecord, teamSchema } from "../records.js";

const inputSchema = lazy(() => z.object({ limit: limitParam(), offset: offsetParam() }));
const outputSchema = lazy(() => listOutput("teams", teamSchema()));

export const listTeams = defineTool({
  name: "Pager.ListTeams",
  title: "List teams",
  description: "Lists teams by name. Pager.GetTeam gives a team's members, services and policies.",
  input: inputSchema,
  output: outputSchema,
  hints: READ_ONLY_HINTS,
  auth: pagerAuth(SCOPES.teams),
  async handler(input, context) {
    const page = pageParams(input);
    const client = await createPagerClient(context);
    return listResult("teams", await client.teams(page), teamRecord);
  },
});
