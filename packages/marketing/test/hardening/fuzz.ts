import { envHost } from "@toolkits/core";
import { toMcpTool } from "@toolkits/core/mcp";
import {
  argumentsFor,
  connectTools,
  invalidArgumentsFor,
  type JsonSchema,
  namesParameter,
  type ToolClient,
} from "@toolkits/core/testing";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENDPOINTS, type EndpointSpec, marketingTool, marketingTools } from "../../src/index.js";
import { SANDBOX_API_KEY } from "../../src/sandbox/index.js";
import { contractProblems } from "../support/contract.js";
import { useSandbox } from "../support/harness.js";
import { sampleArgs } from "../support/samples.js";

// Property-based input tests of the marketing tools against the sandbox, through the MCP adapter.
// Split over two files (the endpoint table's halves) so the two test workers share the work.
const RUNS = 25;
// Errors a schema-valid call may get: a rule the JSON Schema cannot express (execute-mode
// parameters, the request body against its schema, period counts, time ranges, empty path
// values), or an id the sandbox account lacks.
const KNOWN_ERROR = /^(invalid_input|not_found): /;

/** Each parameter's sample value (seeded ids, the example request body), mixed into the generated ones. */
function samples(spec: EndpointSpec): Record<string, unknown[]> {
  return Object.fromEntries(Object.entries(sampleArgs(spec)).map(([name, value]) => [name, [value]]));
}

/** Fuzzes the tools of `specs`: arguments that break the schema and arguments that satisfy it. */
export function fuzzTools(specs: readonly EndpointSpec[]): void {
  const sandbox = useSandbox();
  let tools: ToolClient;
  // One connection for the file: listing 115 tools makes the client compile their output schemas.
  beforeAll(async () => {
    tools = await connectTools(marketingTools, envHost({ MARKETING_API_KEY: SANDBOX_API_KEY }));
  });
  afterAll(() => tools.close());

  describe.each(specs.map((spec) => [spec.name, spec] as const))("%s", (name, spec) => {
    const schema = toMcpTool(marketingTool(name) ?? fail(name)).inputSchema as JsonSchema;

    it("refuses arguments that break its input schema as invalid_input naming the parameter, sending nothing", async () => {
      await fc.assert(
        fc.asyncProperty(
          invalidArgumentsFor(schema, { samples: samples(spec) }),
          async ({ args, parameter }) => {
            const before = sandbox.seen.length;
            const message = (await tools.call(name, args)).text;
            expect(message).toMatch(/^invalid_input: /);
            expect(namesParameter(message, parameter), message).toBe(true);
            expect(sandbox.seen.length).toBe(before);
          },
        ),
        { numRuns: RUNS },
      );
    });

    it("answers arguments that satisfy its schema with a result or a known error, sending conforming requests", async () => {
      await fc.assert(
        fc.asyncProperty(argumentsFor(schema, { samples: samples(spec) }), async (args) => {
          const before = sandbox.seen.length;
          const result = await tools.call(name, args);
          if (result.isError) expect(result.text).toMatch(KNOWN_ERROR);
          const checked = await Promise.all(sandbox.seen.slice(before).map(contractProblems));
          expect(checked.flatMap(({ problems }) => problems)).toEqual([]);
        }),
        { numRuns: RUNS },
      );
    });
  });
}

function fail(name: string): never {
  throw new Error(`no tool ${name}`);
}

/** The endpoint table's first or second half. */
export const half = (which: 0 | 1): readonly EndpointSpec[] => {
  const middle = Math.ceil(ENDPOINTS.length / 2);
  return which === 0 ? ENDPOINTS.slice(0, middle) : ENDPOINTS.slice(middle);
};
