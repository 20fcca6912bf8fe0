import type { Sandbox } from "@toolkits/core";
import { HttpResponse, http } from "msw";
import { REGIONS } from "../client.js";
import type { EndpointSpec } from "../endpoint.js";
import { ENDPOINTS } from "../endpoints.generated.js";
import { type Account, createAccount } from "./account.js";
import { EXAMPLES } from "./examples.generated.js";
import { errorBodies, STATEFUL } from "./stateful.js";

export { SEEDED_MEMBERS } from "./account.js";
export { EXAMPLES } from "./examples.generated.js";
export { sampleArgs } from "./samples.js";

/** The only App API key the sandbox accepts. */
export const SANDBOX_API_KEY = "sandbox-marketing-key";

/**
 * A fake App API at the US host, fresh on every call: msw handlers for all 115 endpoints, which
 * answer 401 to any key but SANDBOX_API_KEY. Collections, snippets, segments (with cursor-paged
 * members) and suppressions are kept in memory, so creates, lists, updates and deletes reflect each
 * other and unknown ids answer 404; every other endpoint answers the OpenAPI description's example.
 */
export function sandbox(): Sandbox {
  const account = createAccount();
  return {
    handlers: ENDPOINTS.map((spec) => handlerFor(spec, account)),
    secrets: { MARKETING_API_KEY: SANDBOX_API_KEY },
  };
}

const METHODS = { GET: http.get, POST: http.post, PUT: http.put, DELETE: http.delete } as const;

function handlerFor(spec: EndpointSpec, account: Account) {
  // An empty language segment selects the default language, so that placeholder is optional.
  const path = spec.path.replace(/\{language\}/, ":language?").replace(/\{([^}]+)\}/g, ":$1");
  return METHODS[spec.method](`${REGIONS.us}${path}`, async ({ request, params }) => {
    if (request.headers.get("authorization") !== `Bearer ${SANDBOX_API_KEY}`) {
      return HttpResponse.json(errorBodies.metaList(["Unauthorized request: check your App API key"]), {
        status: 401,
      });
    }
    const stateful = STATEFUL[spec.operationId];
    if (!stateful) return exampleAnswer(spec);
    const text = await request.text();
    return stateful({
      account,
      params: stringParams(params),
      query: new URL(request.url).searchParams,
      body: text ? JSON.parse(text) : undefined,
    });
  });
}

function exampleAnswer(spec: EndpointSpec): Response {
  const { status, body } = EXAMPLES.responses[spec.name] ?? { status: 200, body: {} };
  if (body === undefined) return new HttpResponse(null, { status });
  // Example lists are single pages: an empty `next` is the upstream's last-page marker.
  const answer = body && typeof body === "object" && "next" in body ? { ...body, next: "" } : body;
  return HttpResponse.json(answer as Record<string, unknown>, { status });
}

/** msw hands path params over already percent-decoded. */
function stringParams(
  params: Record<string, string | readonly string[] | undefined>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(params)) if (typeof value === "string") out[name] = value;
  return out;
}
