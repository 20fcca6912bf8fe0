import type { AnyToolDefinition, Toolkit } from "@toolkits/core";
import { MARKETING_API } from "./client.js";
import { ENDPOINTS } from "./endpoints.generated.js";
import { toolFromEndpoint } from "./tool.js";

export {
  API_KEY_SECRET,
  createMarketingClient,
  MARKETING_API,
  MARKETING_BUDGET,
  type MarketingClient,
  REGION_SETTING,
  REGIONS,
  type Region,
  resolveUpstream,
  type Upstream,
} from "./client.js";
export type { EndpointSpec, ParamSpec, ValueSetName, ValueType } from "./endpoint.js";
export { ENDPOINTS, PERIOD_MAXIMUMS, VALUE_SETS } from "./endpoints.generated.js";
export {
  bodyToUpstream,
  callToUpstream,
  ID_NAMES,
  resultToNeutral,
  schemaToNeutral,
  type UpstreamCall,
  upstreamIdType,
  upstreamPersonId,
} from "./ids.js";
export { MAX_RESULT_BYTES } from "./result.js";
export { inputSchema, toolFromEndpoint } from "./tool.js";

/**
 * The 115 `MarketingApi.*` tool definitions, one per App API endpoint, in the endpoint table's
 * order. Each needs the secret MARKETING_API_KEY; results are the upstream JSON (nulls dropped,
 * ids in neutral names, at most 60 000 bytes) with `more` / `next_page_token` on paged lists.
 */
export const marketingTools: readonly AnyToolDefinition[] = ENDPOINTS.map(toolFromEndpoint);

const byName = new Map(marketingTools.map((tool) => [tool.name, tool]));

/** One tool definition by its name (`MarketingApi.GetAllSegments`); undefined when there is none. */
export function marketingTool(name: string): AnyToolDefinition | undefined {
  return byName.get(name);
}

/** The marketing toolkit as a host composes it. */
export const marketingToolkit: Toolkit = {
  id: "marketing",
  title: "Marketing",
  tools: marketingTools,
  setup:
    "Set MARKETING_API_KEY to a Customer.io App API key, and MARKETING_REGION=eu for an EU workspace (or MARKETING_API_URL for another host).",
  upstreams: [MARKETING_API],
  sandbox: async () => (await import("./sandbox/index.js")).sandbox(),
};
