import type { Toolkit } from "@toolkits/core";
import { PAGER_API } from "./client.js";
import { getEscalationPolicy } from "./tools/getEscalationPolicy.js";
import { getIncident } from "./tools/getIncident.js";
import { getService } from "./tools/getService.js";
import { getTeam } from "./tools/getTeam.js";
import { listEscalationPolicies } from "./tools/listEscalationPolicies.js";
import { listIncidents } from "./tools/listIncidents.js";
import { listLogEntries } from "./tools/listLogEntries.js";
import { listOnCalls } from "./tools/listOnCalls.js";
import { listSchedules } from "./tools/listSchedules.js";
import { listServices } from "./tools/listServices.js";
import { listTeams } from "./tools/listTeams.js";
import { listUsers } from "./tools/listUsers.js";
import { refreshIncidents } from "./tools/refreshIncidents.js";
import { searchUsers } from "./tools/searchUsers.js";
import { whoAmI } from "./tools/whoAmI.js";

export * from "./client.js";
export {
  ACCEPT_CONFIDENCE,
  ACCEPT_MARGIN,
  DIRECTORY_TTL_MS,
  forgetUserDirectories,
  MAX_MATCHES,
} from "./directory-cache.js";
export type * from "./types.js";
export {
  getEscalationPolicy,
  getIncident,
  getService,
  getTeam,
  listEscalationPolicies,
  listIncidents,
  listLogEntries,
  listOnCalls,
  listSchedules,
  listServices,
  listTeams,
  listUsers,
  refreshIncidents,
  searchUsers,
  whoAmI,
};

/**
 * The 14 read-only `Pager.*` tools over the PagerDuty REST API v2, each building its zod schemas
 * (`input`, `output`) on first use, so importing the toolkit builds none. Credentials:
 * `PAGER_ACCESS_TOKEN` (OAuth, sent as `Bearer`) or `PAGER_API_TOKEN` (a classic API token); host:
 * `PAGER_REGION` (`us` or `eu`) or `PAGER_API_URL`.
 */
export const pagerToolkit: Toolkit = {
  id: "pager",
  title: "Pager",
  tools: [
    whoAmI,
    listIncidents,
    getIncident,
    listLogEntries,
    listEscalationPolicies,
    getEscalationPolicy,
    listServices,
    getService,
    listSchedules,
    listOnCalls,
    listUsers,
    searchUsers,
    listTeams,
    getTeam,
  ],
  setup:
    "Set PAGER_ACCESS_TOKEN to a PagerDuty OAuth access token with read scopes (or PAGER_API_TOKEN to a classic API token), and PAGER_REGION=eu for an EU account.",
  upstreams: [PAGER_API],
  sandbox: async () => (await import("./sandbox/index.js")).sandbox(),
};
