import * as core from "@toolkits/core";
import * as aiSdk from "@toolkits/core/ai-sdk";
import * as openai from "@toolkits/core/openai";
import { readmeSuite } from "@toolkits/testkit/readme-snippets";
import { describe, expect, it, vi } from "vitest";
import * as pager from "../src/index.js";

// The README's library snippets, as a reader copies them: every ```ts block after a
// `<!-- readme-test -->` line is type-checked against the sources and run on the sandbox.

/** What the snippets import, by the names a reader imports them by. */
const MODULES: Record<string, unknown> = {
  "@toolkits/core": core,
  "@toolkits/core/ai-sdk": aiSdk,
  "@toolkits/core/openai": openai,
  "@toolkits/pager": pager,
};

describe("the README's library snippets", () => {
  // Checks that the README has 2 snippets and that they type-check; restores mocks after each test.
  const { blocks, run } = readmeSuite(import.meta.url, MODULES, 2);

  it("run the tools on the sandbox with sandboxHost and invokeTool", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    const { outcome, me } = await run(blocks[0] ?? "");
    expect(outcome.ok).toBe(true);
    expect(outcome.result.incidents.length).toBeGreaterThan(0);
    expect(outcome.result.limit).toBe(3);
    expect(
      outcome.result.incidents.every((incident: { status: string }) => incident.status === "triggered"),
    ).toBe(true);
    expect(me.ok).toBe(true);
    const [titles, [name, onCall]] = log.mock.calls as [[string[]], [string, boolean]];
    expect(titles[0]).toEqual(outcome.result.incidents.map((incident: { title: string }) => incident.title));
    expect(name).toBe(me.result.user.name);
    expect(onCall).toBe(true);
  });

  it("hand the tools to the AI SDK and to OpenAI, strict, running calls on the sandbox", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    const { tools, chat, responses } = await run(blocks[1] ?? "");
    const names = pager.pagerToolkit.tools.map((tool) => tool.name.replace(".", "_"));
    expect(Object.keys(tools)).toEqual(names);
    const executed = await tools.Pager_ListIncidents.execute(
      { status: "triggered", limit: 2 },
      { toolCallId: "call-1", messages: [] },
    );
    expect(executed.limit).toBe(2);
    expect(executed.incidents.length).toBeGreaterThan(0);

    expect(chat.tools.map((entry: openai.FunctionTool) => entry.function.name)).toEqual(names);
    for (const { function: fn } of chat.tools as openai.FunctionTool[]) {
      expect(fn.strict).toBe(true);
      expect(fn.parameters.additionalProperties).toBe(false);
      expect(fn.parameters.required).toEqual(Object.keys(fn.parameters.properties as object));
    }
    expect(responses.tools.map((entry: openai.ResponsesFunctionTool) => entry.name)).toEqual(names);
    expect(responses.tools.every((entry: openai.ResponsesFunctionTool) => entry.strict)).toBe(true);

    const [[answer]] = log.mock.calls as [[string]];
    const listed = JSON.parse(answer);
    expect(listed.limit).toBe(3);
    expect(listed.incidents.length).toBeGreaterThan(0);
    expect(listed.incidents.every((incident: { status: string }) => incident.status === "triggered")).toBe(
      true,
    );

    // The loops' calls, as the comments show them, on what a model sends.
    const [message] = await chat.runCalls([
      { id: "call_1", type: "function", function: { name: "Pager_WhoAmI", arguments: "{}" } },
    ]);
    expect(message).toMatchObject({ role: "tool", tool_call_id: "call_1" });
    expect(JSON.parse(message.content).user.name).toBeTruthy();
    const [output] = await responses.runCalls([
      {
        type: "function_call",
        call_id: "fc_1",
        name: "Pager_GetIncident",
        arguments: '{"incident_id": "PNOPE00"}',
      },
    ]);
    expect(output).toMatchObject({ type: "function_call_output", call_id: "fc_1" });
    expect(JSON.parse(output.output).error.kind).toBe("not_found");
  });
});
