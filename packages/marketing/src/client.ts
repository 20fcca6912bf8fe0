import {
  type Credential,
  createHttpClient,
  type FailureInfo,
  type RateBudget,
  type ToolContext,
  ToolError,
  type UpstreamApi,
} from "@toolkits/core";
import type { EndpointSpec } from "./endpoint.js";
import { LIST_TOOLS } from "./endpoints.generated.js";
import { callToUpstream, resultToNeutral, type UpstreamCall } from "./ids.js";

/** App API hosts by region. */
export const REGIONS = Object.freeze({
  us: "https://api.customer.io",
  eu: "https://api-eu.customer.io",
});
export type Region = keyof typeof REGIONS;

/** The App API's documented limit: about 10 requests a second, counted per API key. */
export const MARKETING_BUDGET: RateBudget = {
  name: "marketing",
  requests: 10,
  periodS: 1,
  per: "credential",
};

/** The API the tools call, where it answers and the budget every request of theirs counts against. */
export const MARKETING_API: UpstreamApi = {
  title: "Customer.io App API",
  origins: REGIONS,
  budgets: [MARKETING_BUDGET],
};

/** The secret holding the App API key, sent as `Authorization: Bearer <key>`. */
export const API_KEY_SECRET = "MARKETING_API_KEY";
/** The setting naming the key's region, `us` or `eu`; the key may carry it (`Credential.settings`). */
export const REGION_SETTING = "MARKETING_REGION";
const TOOL_PREFIX = "MarketingApi.";

/** Where requests go: `MARKETING_API_URL` wins, else the `MARKETING_REGION` host (default `us`). */
export interface Upstream {
  baseUrl: string;
  /** The region, or `custom` when MARKETING_API_URL is set. */
  region: Region | "custom";
}

/**
 * Resolves the upstream from the context's settings: the one rule for where App API requests go.
 * @throws ToolError `invalid_input` when MARKETING_REGION is neither `us` nor `eu`.
 */
export function resolveUpstream(context: Pick<ToolContext, "setting">): Upstream {
  const url = context.setting("MARKETING_API_URL");
  if (url) return { baseUrl: url.replace(/\/+$/, ""), region: "custom" };
  const region = (context.setting(REGION_SETTING) ?? "us").trim().toLowerCase() || "us";
  if (!Object.hasOwn(REGIONS, region)) {
    throw new ToolError(
      "invalid_input",
      `MARKETING_REGION is "${region}"; allowed: ${Object.keys(REGIONS).join(", ")}. Fix the server's configuration.`,
    );
  }
  return { baseUrl: REGIONS[region as Region], region: region as Region };
}

/**
 * The typed App API client. Translates neutral id kinds to the upstream's at the boundary, both
 * ways (see `ids.ts`), and retries only what is safe to repeat: reads without a body after a 5xx
 * or network failure; a call with a request body (every [M] execute: sends, triggers, imports,
 * exports, creates, updates, searches) is never re-sent after it may have reached the upstream.
 * A 429 is retried, since it was refused.
 */
export interface MarketingClient {
  readonly upstream: Upstream;
  /**
   * Sends one call for `spec` and returns the parsed JSON answer with neutral id keys; `undefined`
   * for an empty answer (HTTP 204).
   * @throws ToolError of the failure's kind (`unauthenticated` naming the region, `not_found` naming
   *   the tool that lists valid ids, `rate_limited` with the wait, …).
   */
  send(spec: EndpointSpec, call: UpstreamCall): Promise<unknown>;
}

/**
 * Builds a client for one tool call from the App API key its tool declares and the context's
 * settings, the key's own (its region) first; every request counts against MARKETING_BUDGET.
 */
export async function createMarketingClient(context: ToolContext): Promise<MarketingClient> {
  const credential = await context.credential();
  const upstream = resolveUpstream({ setting: (name) => settingFor(credential, context, name) });
  const key = credential.value;
  const http = createHttpClient({
    baseUrl: upstream.baseUrl,
    authorization: () => `Bearer ${key.reveal()}`,
    fetch: context.fetch,
    budget: MARKETING_BUDGET,
    ...context.upstream,
  });
  return {
    upstream,
    async send(spec, call) {
      const sent = callToUpstream(spec, call);
      const response = await http.request({
        method: spec.method,
        path: sent.path,
        pathParams: sent.pathParams,
        query: sent.query,
        headers: sent.headers,
        body: sent.body,
        // A request body is sent at most once past a 5xx, whatever the endpoint: its effect
        // cannot be checked cheaply, so the model decides whether to repeat it.
        idempotent: spec.hints.idempotent && !spec.mode,
        signal: context.signal,
        advise: (failure) => advice(failure, spec, upstream),
      });
      return resultToNeutral(response.data);
    },
  };
}

/** A setting as it holds for requests with `credential`: the credential's own, else the host's. */
function settingFor(credential: Credential, context: ToolContext, name: string): string | undefined {
  return credential.settings?.[name] ?? context.setting(name);
}

function advice({ status }: FailureInfo, spec: EndpointSpec, upstream: Upstream): string | undefined {
  if (status === 401) {
    const where =
      upstream.region === "custom"
        ? `the host ${upstream.baseUrl} (MARKETING_API_URL)`
        : `the ${upstream.region.toUpperCase()} region (MARKETING_REGION=${upstream.region}; the other is ${upstream.region === "us" ? "eu" : "us"})`;
    return `Check that ${API_KEY_SECRET} is an App API key of a workspace in ${where}: a key from the other region is refused with 401.`;
  }
  if (status === 404) {
    const lister = LIST_TOOLS[spec.toolset];
    return lister ? `Check the ids; ${TOOL_PREFIX}${lister} lists valid ones.` : undefined;
  }
  if (status === 429 && spec.operationId === "triggerBroadcast") {
    return "Broadcast triggers are limited to 1 request per 10 seconds.";
  }
  return undefined;
}
