import { envHost } from "@toolkits/core";
import { toAiSdkTools } from "@toolkits/core/ai-sdk";
import { toFunctionTools } from "@toolkits/core/openai";
import { useToolkitSandbox } from "@toolkits/core/testing";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { pagerToolkit } from "../src/index.js";
import { PAGER } from "./kit.js";

// The same sandbox and contract as over MCP, through the other adapters' own hosts.
const pd = useToolkitSandbox(pagerToolkit, PAGER);

describe("the pager tools outside MCP", () => {
  it("run as OpenAI-style function tools, named without dots", async () => {
    const host = envHost(pd.env);
    const incident = pd.sandbox.account.incidents[0];
    const set = toFunctionTools(pagerToolkit.tools, host);
    const names = set.tools.map((tool) => tool.function.name);
    expect(names).toContain("Pager_GetIncident");
    expect(names.every((name) => /^[a-zA-Z0-9_-]{1,64}$/.test(name))).toBe(true);
    const answer = JSON.parse(
      await set.call("Pager_GetIncident", JSON.stringify({ incident_id: incident?.id })),
    );
    expect(answer.incident.id).toBe(incident?.id);
    const missing = JSON.parse(
      await set.call("Pager_GetIncident", JSON.stringify({ incident_id: "PNOPE00" })),
    );
    expect(missing.error.kind).toBe("not_found");
  });

  it("run inside the Vercel AI SDK's generateText when the model calls them", async () => {
    const usage = {
      inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 1, text: 1, reasoning: 0 },
    };
    const model = new MockLanguageModelV3({
      doGenerate: async ({ prompt }) =>
        prompt.some((message) => message.role === "tool")
          ? {
              content: [{ type: "text", text: "listed" }],
              finishReason: { unified: "stop", raw: "stop" },
              usage,
              warnings: [],
            }
          : {
              content: [
                {
                  type: "tool-call",
                  toolCallId: "call-1",
                  toolName: "Pager_ListIncidents",
                  input: JSON.stringify({ status: "triggered", limit: 3 }),
                },
              ],
              finishReason: { unified: "tool-calls", raw: "tool_calls" },
              usage,
              warnings: [],
            },
    });
    const result = await generateText({
      model,
      tools: toAiSdkTools(pagerToolkit.tools, envHost(pd.env)),
      prompt: "Which incidents are triggered?",
      stopWhen: stepCountIs(3),
    });
    const [output] = result.steps.flatMap((step) => step.toolResults).map((part) => part.output) as {
      incidents: { status: string }[];
      limit: number;
    }[];
    expect(output?.limit).toBe(3);
    expect(output?.incidents.length).toBeGreaterThan(0);
    expect(output?.incidents.every((item) => item.status === "triggered")).toBe(true);
    expect(result.text).toBe("listed");
  });
});
