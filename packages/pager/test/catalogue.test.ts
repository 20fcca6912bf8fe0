import { toMcpTool } from "@toolkits/core/mcp";
import { useToolkitSandbox } from "@toolkits/core/testing";
import { describe, expect, it } from "vitest";
import { pagerToolkit } from "../src/index.js";
import { PAGER } from "./kit.js";

const pd = useToolkitSandbox(pagerToolkit, PAGER);

/** This toolkit's share of the 100,000-byte catalogue every session shows a model. */
const CATALOGUE_SHARE_BYTES = 9_000;

const PAGE = ["limit", "offset"];
/** The parameters the product spec gives each tool. */
const SPEC: Record<string, string[]> = {
  "Pager.WhoAmI": [],
  "Pager.ListIncidents": ["status", "urgency", "service_ids", "team_ids", "since", "until", ...PAGE],
  "Pager.GetIncident": ["incident_id"],
  "Pager.ListLogEntries": ["since", "until", "team_ids", "time_zone", "is_overview", ...PAGE],
  "Pager.ListEscalationPolicies": PAGE,
  "Pager.GetEscalationPolicy": ["escalation_policy_id"],
  "Pager.ListServices": ["query", ...PAGE],
  "Pager.GetService": ["service_id"],
  "Pager.ListSchedules": [...PAGE, "time_zone"],
  "Pager.ListOnCalls": [
    "schedule_ids",
    "escalation_policy_ids",
    "team_ids",
    "time_zone",
    "since",
    "until",
    ...PAGE,
  ],
  "Pager.ListUsers": PAGE,
  "Pager.SearchUsers": ["query", "auto_accept_matches"],
  "Pager.ListTeams": PAGE,
  "Pager.GetTeam": ["team_id"],
};

const listing = pagerToolkit.tools.map(toMcpTool);

describe("the Pager catalogue", () => {
  it(`stays within its ${CATALOGUE_SHARE_BYTES}-byte share of the catalogue`, () => {
    const bytes = listing.reduce(
      (sum, tool) =>
        sum + Buffer.byteLength(tool.name + (tool.description ?? "") + JSON.stringify(tool.inputSchema)),
      0,
    );
    expect(bytes).toBeLessThanOrEqual(CATALOGUE_SHARE_BYTES);
  });

  it("has the spec's 14 tools with exactly its parameters, required ids and defaults", () => {
    expect(
      Object.fromEntries(listing.map((tool) => [tool.name, Object.keys(tool.inputSchema.properties ?? {})])),
    ).toEqual(SPEC);
    for (const tool of listing) {
      const properties = tool.inputSchema.properties as Record<string, Record<string, unknown>>;
      const ids = Object.keys(properties).filter((name) => name.endsWith("_id") || name === "query");
      const required = tool.name === "Pager.ListServices" ? [] : ids;
      expect(tool.inputSchema.required ?? [], tool.name).toEqual(required);
      if (properties.limit) {
        expect(properties.limit).toMatchObject({ type: "integer", minimum: 1, maximum: 50, default: 10 });
        expect(properties.offset).toMatchObject({ type: "integer", minimum: 0 });
        expect(properties.offset).not.toHaveProperty("default");
      }
    }
    const byName = new Map(
      listing.map((tool) => [tool.name, tool.inputSchema.properties as Record<string, object>]),
    );
    expect(byName.get("Pager.ListIncidents")?.status).toMatchObject({
      enum: ["triggered", "acknowledged", "resolved"],
    });
    expect(byName.get("Pager.ListIncidents")?.urgency).toMatchObject({ enum: ["high", "low"] });
    expect(byName.get("Pager.ListLogEntries")?.is_overview).toMatchObject({ type: "boolean", default: true });
    expect(byName.get("Pager.SearchUsers")?.auto_accept_matches).toMatchObject({
      type: "boolean",
      default: false,
    });
  });

  it("keeps input schemas flat", () => {
    for (const tool of listing) {
      const text = JSON.stringify(tool.inputSchema);
      expect(text).not.toMatch(/\$ref|\$defs|definitions/);
      for (const property of Object.values(tool.inputSchema.properties ?? {}) as { type?: string }[]) {
        expect(property.type).not.toBe("object");
      }
    }
  });

  it("marks every tool read-only, open-world, not destructive and idempotent, with read auth", () => {
    for (const [index, tool] of listing.entries()) {
      expect(tool.annotations).toEqual({
        title: tool.title,
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: true,
      });
      const definition = pagerToolkit.tools[index];
      expect(definition?.toolset).toBeUndefined();
      expect(definition?.auth).toMatchObject({ oauth: { provider: "pager" }, secret: "PAGER_API_TOKEN" });
      expect(definition?.auth.oauth?.scopes.length).toBeGreaterThan(0);
      for (const scope of definition?.auth.oauth?.scopes ?? []) expect(scope).toMatch(/^[a-z_]+\.read$/);
    }
  });

  it("says how long WhoAmI looks ahead and how SearchUsers accepts a match", () => {
    const description = (name: string) => listing.find((tool) => tool.name === name)?.description;
    expect(description("Pager.WhoAmI")).toContain("within 30 days");
    expect(description("Pager.SearchUsers")).toContain("at least 0.9 and 0.05 above the runner-up");
    expect(description("Pager.ListIncidents")).toContain("only the last 30 days");
  });
});

describe("results", () => {
  it("list 10 incidents in at most a quarter of the bytes of PagerDuty's own page", async () => {
    const result = await pd.call("Pager.ListIncidents", { limit: 10 });
    const [request] = pd.requests;
    const raw = await (await fetch(request?.url ?? "", { headers: request?.headers })).text();
    expect(JSON.parse(raw).incidents).toHaveLength(10);
    const ours = Buffer.byteLength(JSON.stringify(result.data));
    expect(ours).toBeLessThanOrEqual(Buffer.byteLength(raw) / 4);
  });
});
