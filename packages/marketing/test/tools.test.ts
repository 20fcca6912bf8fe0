import { toMcpTool } from "@toolkits/core/mcp";
import { useToolkitSandbox } from "@toolkits/core/testing";
import { describe, expect, it } from "vitest";
import { ENDPOINTS, marketingTool, marketingToolkit, marketingTools } from "../src/index.js";
import { MARKETING } from "./support/kit.js";

const box = useToolkitSandbox(marketingToolkit, MARKETING);

/** This package's share of the 100,000-byte catalogue every session reads. */
const CATALOGUE_SHARE = 78_000;
const TOOLSETS = [
  "broadcasts",
  "campaigns",
  "collections",
  "deliveries",
  "exports",
  "imports",
  "newsletters",
  "objects",
  "people",
  "segments",
  "senders",
  "snippets",
  "suppressions",
  "transactional",
  "webhooks",
  "workspace",
];

describe("the tool catalogue", () => {
  it("lists 115 tools over MCP with titles, all four annotations and flat input schemas", async () => {
    const { tools } = await (await box.connect()).client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(ENDPOINTS.map((spec) => spec.name));
    for (const tool of tools) {
      expect(tool.name).toMatch(/^MarketingApi\.[A-Z][A-Za-z]+$/);
      expect(tool.title).toBeTruthy();
      expect(Object.keys(tool.annotations ?? {}).sort()).toEqual([
        "destructiveHint",
        "idempotentHint",
        "openWorldHint",
        "readOnlyHint",
        "title",
      ]);
      expect(tool.annotations?.openWorldHint).toBe(true);
      const json = JSON.stringify(tool.inputSchema);
      expect(json).not.toContain("$ref");
      for (const property of Object.values(tool.inputSchema.properties ?? {}) as Record<string, unknown>[]) {
        expect(["string", "integer", "boolean"]).toContain(property.type);
        if (property.type === "integer") expect(property.minimum).toBeGreaterThanOrEqual(0);
      }
    }
  });

  it(`stays within its share of the catalogue (${CATALOGUE_SHARE} bytes)`, () => {
    const bytes = marketingTools
      .map(toMcpTool)
      .reduce(
        (sum, tool) =>
          sum +
          Buffer.byteLength(
            JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }),
          ),
        0,
      );
    console.warn(`marketing catalogue: ${bytes} bytes for ${marketingTools.length} tools`);
    expect(bytes).toBeLessThanOrEqual(CATALOGUE_SHARE);
  });

  it("describes units and paging where they apply", () => {
    for (const spec of ENDPOINTS) {
      if (spec.params.some((p) => p.timestamp)) expect(spec.description).toContain("Unix seconds");
      if (spec.paging && "token" in spec.paging) {
        expect(spec.description).toContain(`pass next_page_token from the result as ${spec.paging.token}`);
      }
      if (spec.periods) expect(spec.description).toContain("at most 24 hours, 45 days, 12 weeks or");
      if (spec.mode) expect(spec.description).toContain("mode get_request_schema");
    }
  });

  it("marks required (*) parameters required and execute-mode (^) ones optional", () => {
    const schema = marketingTool("MarketingApi.UpdateCampaignActionTranslation")?.input;
    const shape = schema?.shape as Record<string, { isOptional(): boolean }>;
    expect(shape.mode?.isOptional()).toBe(false);
    expect(
      ["campaign_id", "action_id", "language_tag", "request_body"].map((p) => shape[p]?.isOptional()),
    ).toEqual([true, true, true, true]);
    const metrics = marketingTool("MarketingApi.GetCampaignJourneyMetrics")?.input.shape as Record<
      string,
      { isOptional(): boolean }
    >;
    expect(Object.values(metrics).every((p) => !p.isOptional())).toBe(true);
  });

  it("applies the upstream defaults", () => {
    const parse = (name: string, args: object) => marketingTool(`MarketingApi.${name}`)?.input.parse(args);
    expect(parse("GetSegmentMembers", { segment_identifier: 7 })).toEqual({
      segment_identifier: 7,
      maximum_results_per_page: 1000,
    });
    expect(parse("FindSuppressedEmailAddresses", { suppression_reason: "bounces" })).toMatchObject({
      max_results_per_page: 100,
      skip_records: 0,
    });
    expect(parse("GetRelatedPeople", { object_type_identifier: 1, object_identifier: "a" })).toMatchObject({
      identification_type: "object_id",
    });
    expect(parse("GetBroadcastLinkMetrics", { broadcast_identifier: 1 })).toEqual({
      broadcast_identifier: 1,
      report_period: "days",
      return_unique_customer_results: false,
    });
  });
});

describe("hints and toolsets", () => {
  const hints = (name: string) => marketingTool(`MarketingApi.${name}`)?.hints;

  it("marks every GET and the three search POSTs read-only and idempotent", () => {
    for (const spec of ENDPOINTS.filter((s) => s.method === "GET")) {
      expect(spec.hints).toEqual({ readOnly: true, destructive: false, idempotent: true });
    }
    for (const name of ["FilterPeopleInWorkspace", "GetCustomerInfo", "FindWorkspaceObjects"]) {
      expect(hints(name)).toEqual({ readOnly: true, destructive: false, idempotent: true, openWorld: true });
    }
  });

  it("marks PUT overwrites and DELETEs destructive and idempotent", () => {
    for (const spec of ENDPOINTS.filter((s) => s.method === "PUT" || s.method === "DELETE")) {
      expect(spec.hints).toEqual({ readOnly: false, destructive: true, idempotent: true });
    }
  });

  it("marks sends, triggers, imports, exports and creates neither read-only nor idempotent", () => {
    const unsafe = ENDPOINTS.filter((s) => !s.hints.idempotent).map((s) => s.name.slice(13));
    expect(unsafe).toHaveLength(10);
    for (const name of unsafe) expect(hints(name)).toMatchObject({ readOnly: false, destructive: false });
    for (const name of ["SuppressEmailAtEsp", "UpdateCustomerAttributes", "UpdateEventMetadata"]) {
      expect(hints(name)).toEqual({ readOnly: false, destructive: false, idempotent: true, openWorld: true });
    }
  });

  it("files every tool under one of the 16 toolsets", () => {
    expect(new Set(ENDPOINTS.map((spec) => spec.toolset))).toEqual(new Set(TOOLSETS));
    expect(
      marketingTools.filter((tool) => tool.toolset === "segments").map((tool) => tool.name.slice(13)),
    ).toEqual([
      "GetAllSegments",
      "CreateManualSegment",
      "DeleteManualSegment",
      "GetSegmentInfo",
      "GetSegmentCustomerCount",
      "GetSegmentMembers",
      "FindSegmentDependencies",
    ]);
  });

  it("is composed as the marketing toolkit with a lazy sandbox", async () => {
    expect(marketingToolkit.id).toBe("marketing");
    expect(marketingToolkit.tools).toHaveLength(115);
    expect(marketingToolkit.setup).toContain("MARKETING_API_KEY");
    expect((await marketingToolkit.sandbox()).handlers).toHaveLength(115);
  });
});
