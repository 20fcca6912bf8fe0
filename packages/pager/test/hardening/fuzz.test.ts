import { fuzzTools, useToolkitSandbox } from "@toolkits/core/testing";
import { pagerToolkit } from "../../src/index.js";
import type { PagerAccount } from "../../src/sandbox/index.js";
import { PAGER, pagerContract } from "../kit.js";

// Property-based input tests of all 14 tools against the sandbox, through the MCP adapter.
// Errors a schema-valid call may get: a format or cross-field rule the JSON Schema cannot express
// (ISO times, time zones, until after since, offset + limit), or an id the account lacks.
const KNOWN_ERROR = /^(invalid_input|not_found): /;

const pd = useToolkitSandbox(pagerToolkit, PAGER);

/** Values the sandbox account knows, so that valid arguments also get past the lookups. */
function samples(account: PagerAccount): Record<string, unknown[]> {
  const ids = <T extends { id: string }>(items: T[]) => items.slice(0, 3).map((item) => item.id);
  const day = 86_400_000;
  return {
    incident_id: [...ids(account.incidents), String(account.incidents[0]?.incident_number)],
    escalation_policy_id: ids(account.policies),
    service_id: ids(account.services),
    team_id: ids(account.teams),
    service_ids: [ids(account.services)],
    team_ids: [ids(account.teams)],
    schedule_ids: [ids(account.schedules)],
    escalation_policy_ids: [ids(account.policies)],
    since: [new Date(account.now - 7 * day).toISOString(), "2024-01-01"],
    until: [new Date(account.now).toISOString(), new Date(account.now + day).toISOString()],
    time_zone: ["UTC", "Europe/Berlin", "America/Los_Angeles"],
    query: account.users.slice(0, 3).flatMap((user) => [user.name, user.email]),
  };
}

fuzzTools(pd, pagerToolkit.tools, {
  runs: 40,
  knownError: KNOWN_ERROR,
  samples: () => samples(pd.sandbox.account),
  contract: pagerContract,
});
