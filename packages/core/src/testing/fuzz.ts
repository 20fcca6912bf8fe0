import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toMcpTool } from "../mcp/index.js";
import type { AnyToolDefinition, Sandbox } from "../tool.js";
import { argumentsFor, invalidArgumentsFor, type JsonSchema, namesParameter } from "./arguments.js";
import type { RequestContract } from "./contract.js";
import type { Env, ToolkitSandbox } from "./harness.js";

/** Options of `fuzzTools`. */
export interface FuzzOptions {
  /** Generated argument sets per tool and property. */
  runs: number;
  /**
   * Errors a call with schema-valid arguments may still get: rules a JSON Schema cannot express
   * (formats, cross-field rules) or ids the sandbox lacks, e.g. `/^(invalid_input|not_found): /`.
   */
  knownError: RegExp;
  /** Known-good values per parameter of `tool` (ids the sandbox holds), read when its tests run. */
  samples?: (tool: AnyToolDefinition) => Readonly<Record<string, readonly unknown[]>>;
  /** What every request a valid call sends must conform to. */
  contract?: RequestContract;
  /** The server's environment (default the harness's), read when the tests run. */
  env?: () => Env;
}

/** `Object.prototype`'s own members as they are now: each name with its value, getter and setter. */
function prototypeMembers(): Map<string, readonly unknown[]> {
  const descriptors = Object.getOwnPropertyDescriptors(Object.prototype);
  return new Map(
    Object.entries(descriptors).map(([name, { value, get, set }]) => [name, [value, get, set]] as const),
  );
}

/** The members of `Object.prototype` added, removed or replaced since `before`. */
function prototypeChanges(before: Map<string, readonly unknown[]>): string[] {
  const now = prototypeMembers();
  const names = new Set([...before.keys(), ...now.keys()]);
  return [...names].filter((name) => {
    const [was, is] = [before.get(name), now.get(name)];
    return !was || !is || was.some((part, i) => part !== is[i]);
  });
}

/** Fails when a call has polluted `Object.prototype` (gained, lost or replaced a member). */
function expectNothingPolluted(before: Map<string, readonly unknown[]>): void {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.keys(Object.prototype)).toEqual([]);
  expect(prototypeChanges(before)).toEqual([]);
}

/**
 * Property-based input tests of `tools` over MCP against `box`'s sandbox, two per tool: arguments
 * that break the input schema are refused as `invalid_input` naming the parameter, sending nothing;
 * arguments that satisfy it get a result or a known error, and every request they send conforms to
 * the contract. Generated inputs include names of `Object.prototype` members (as unknown parameters,
 * string values and keys in JSON-object strings); after every call `Object.prototype` must be as it
 * was. Call it where `describe` may be called.
 */
export function fuzzTools<S extends Sandbox>(
  box: ToolkitSandbox<S>,
  tools: readonly AnyToolDefinition[],
  options: FuzzOptions,
): void {
  const rows = tools.map((tool) => [tool.name, tool, toMcpTool(tool).inputSchema as JsonSchema] as const);
  describe.each(rows)("%s", (name, tool, schema) => {
    const connect = () => box.connect(options.env?.());
    const samples = () => ({ samples: options.samples?.(tool) });

    it("refuses arguments that break its input schema as invalid_input naming the parameter, sending nothing", async () => {
      const client = await connect();
      const prototype = prototypeMembers();
      await fc.assert(
        fc.asyncProperty(invalidArgumentsFor(schema, samples()), async ({ args, parameter }) => {
          const before = box.requests.length;
          const result = await client.call(name, args);
          expect(result.text).toMatch(/^invalid_input: /);
          expect(namesParameter(result.text, parameter), result.text).toBe(true);
          expect(box.requests.length).toBe(before);
          expectNothingPolluted(prototype);
        }),
        { numRuns: options.runs },
      );
    });

    it("answers arguments that satisfy its schema with a result or a known error, sending conforming requests and polluting nothing", async () => {
      const client = await connect();
      const prototype = prototypeMembers();
      await fc.assert(
        fc.asyncProperty(argumentsFor(schema, samples()), async (args) => {
          const before = box.requests.length;
          const result = await client.call(name, args);
          if (result.isError) expect(result.text).toMatch(options.knownError);
          const sent = box.requests.slice(before);
          expect(sent.flatMap((request) => options.contract?.problems(request) ?? [])).toEqual([]);
          expectNothingPolluted(prototype);
        }),
        { numRuns: options.runs },
      );
    });
  });
}
