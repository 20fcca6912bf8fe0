import { fuzzTools, useToolkitSandbox } from "@toolkits/core/testing";
import { sampleArgs } from "@toolkits/testkit/marketing-samples";
import { ENDPOINTS, type EndpointSpec, marketingToolkit } from "../../src/index.js";
import { MARKETING, marketingContract } from "../support/kit.js";

// Property-based input tests of the marketing tools against the sandbox, through the MCP adapter.
// Split over two files (the endpoint table's halves) so the two test workers share the work.

/** Each parameter's sample value (seeded ids, the example request body), mixed into the generated ones. */
function samples(spec: EndpointSpec): Record<string, unknown[]> {
  return Object.fromEntries(Object.entries(sampleArgs(spec)).map(([name, value]) => [name, [value]]));
}

/** Fuzzes the tools of the endpoint table's first or second half. */
export function fuzzHalf(which: 0 | 1): void {
  const middle = Math.ceil(ENDPOINTS.length / 2);
  const specs = which === 0 ? ENDPOINTS.slice(0, middle) : ENDPOINTS.slice(middle);
  const specOf = new Map(specs.map((spec) => [spec.name, spec]));
  const tools = marketingToolkit.tools.filter((tool) => specOf.has(tool.name));
  fuzzTools(useToolkitSandbox(marketingToolkit, MARKETING), tools, {
    runs: 25,
    // Errors a schema-valid call may get: a rule the JSON Schema cannot express (execute-mode
    // parameters, the request body against its schema, period counts, time ranges, empty path
    // values), or an id the sandbox account lacks.
    knownError: /^(invalid_input|not_found): /,
    samples: (tool) => samples(specOf.get(tool.name) as EndpointSpec),
    contract: marketingContract,
  });
}
