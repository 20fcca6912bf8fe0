import { defineTool, READ_ONLY_HINTS } from "@toolkits/core";
import { z } from "zod";
import { pagerClient } from "../client.js";
import { limitParam, offsetParam, pageParams, pagerAuth, SCOPES } from "../params.js";
import { listOutput, listResult, teamRecord, teamSchema } from "../records.js";

const scopes = [SCOPES.teams];

export const listTeams = defineTool({
  name: "Pager.ListTeams",
  title: "List teams",
  description: "Lists teams by name. Pager.GetTeam gives a team's members, services and policies.",
  input: z.object({ limit: limitParam, offset: offsetParam }),
  output: listOutput("teams", teamSchema),
  hints: READ_ONLY_HINTS,
  auth: pagerAuth(...scopes),
  async handler(input, context) {
    const page = pageParams(input);
    const client = await pagerClient(context, scopes);
    return listResult("teams", await client.teams(page), teamRecord);
  },
});
