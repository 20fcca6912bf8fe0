import { defineTool, lazy, READ_ONLY_HINTS } from "@toolkits/core";
import { z } from "zod";
import { collectPages, createPagerClient } from "../client.js";
import { pagerAuth, SCOPES } from "../params.js";
import { memberRecord, memberSchema, refSchema, refs, teamRecord, teamSchema } from "../records.js";

const inputSchema = lazy(() => z.object({ team_id: z.string().min(1).describe("From Pager.ListTeams") }));
const outputSchema = lazy(() =>
  z.object({
    team: teamSchema().extend({
      default_role: z.string().optional(),
      members: z.array(memberSchema()),
      services: z.array(refSchema()),
      escalation_policies: z.array(refSchema()),
      incomplete: z.array(z.string()).optional().describe("Lists cut at 1,000 entries"),
    }),
  }),
);

export const getTeam = defineTool({
  name: "Pager.GetTeam",
  title: "Get team",
  description:
    "Gets one team with its members and their roles, and the services and escalation policies it owns.",
  input: inputSchema,
  output: outputSchema,
  hints: READ_ONLY_HINTS,
  auth: pagerAuth(SCOPES.teams, SCOPES.users, SCOPES.services, SCOPES.policies),
  async handler({ team_id }, context) {
    // GET /teams/{id} carries no members or linked resources, so those come from their own lists,
    // side by side; the first failure answers the call, and invokeTool stops the other lists.
    const client = await createPagerClient(context);
    const [team, members, services, policies] = await Promise.all([
      client.team(team_id),
      collectPages((page) => client.teamMembers(team_id, page)),
      collectPages((page) => client.services({ ...page, team_ids: [team_id] })),
      collectPages((page) => client.escalationPolicies({ ...page, team_ids: [team_id] })),
    ]);
    const lists = { members, services, escalation_policies: policies };
    const incomplete = Object.entries(lists).flatMap(([name, list]) => (list.complete ? [] : [name]));
    return {
      team: {
        ...teamRecord(team),
        default_role: team.default_role,
        members: members.items.map(memberRecord),
        services: refs(services.items),
        escalation_policies: refs(policies.items),
        incomplete: incomplete.length ? incomplete : undefined,
      },
    };
  },
});
