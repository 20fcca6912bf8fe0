import type { CallToolResult, Client } from "@modelcontextprotocol/client";
import { toMcpTool } from "@toolkits/core/mcp";
import { argumentsFor, invalidArgumentsFor, type JsonSchema, namesParameter } from "@toolkits/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { pagerToolkit } from "../../src/index.js";
import type { PagerAccount } from "../../src/sandbox/index.js";
import { contractViolations } from "../contract.js";
import { useSandbox } from "../harness.js";

// Property-based input tests of all 14 tools against the sandbox, through the MCP adapter.
const RUNS = 40;
// Errors a schema-valid call may get: a format or cross-field rule the JSON Schema cannot express
// (ISO times, time zones, until after since, offset + limit), or an id the account lacks.
const KNOWN_ERROR = /^(invalid_input|not_found): /;

const pd = useSandbox();

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

async function callTool(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const first = result.content[0];
  return { isError: result.isError === true, text: first?.type === "text" ? first.text : "" };
}

describe.each(
  pagerToolkit.tools.map((tool) => [tool.name, toMcpTool(tool).inputSchema as JsonSchema] as const),
)("%s", (name, schema) => {
  it("refuses arguments that break its input schema as invalid_input naming the parameter, sending nothing", async () => {
    const client = await pd.connect();
    await fc.assert(
      fc.asyncProperty(
        invalidArgumentsFor(schema, { samples: samples(pd.account) }),
        async ({ args, parameter }) => {
          const before = pd.sent.length;
          const result = await callTool(client, name, args);
          expect(result.text).toMatch(/^invalid_input: /);
          expect(namesParameter(result.text, parameter), result.text).toBe(true);
          expect(pd.sent.length).toBe(before);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("answers arguments that satisfy its schema with a result or a known error, sending conforming requests", async () => {
    const client = await pd.connect();
    await fc.assert(
      fc.asyncProperty(argumentsFor(schema, { samples: samples(pd.account) }), async (args) => {
        const before = pd.sent.length;
        const result = await callTool(client, name, args);
        if (result.isError) expect(result.text).toMatch(KNOWN_ERROR);
        expect(pd.sent.slice(before).flatMap(contractViolations)).toEqual([]);
      }),
      { numRuns: RUNS },
    );
  });
});
