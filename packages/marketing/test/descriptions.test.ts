import { type AnyToolDefinition, compact } from "@toolkits/core";
import { toMcpTool } from "@toolkits/core/mcp";
import { descriptionProblems } from "@toolkits/core/testing";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { ENDPOINTS, type EndpointSpec, marketingTool, marketingTools } from "../src/index.js";
import { resultFields, toResult } from "../src/result.js";
import { EXAMPLES } from "../src/sandbox/index.js";
import { sampleArgs } from "../src/sandbox/samples.js";

describe("tool descriptions", () => {
  it("say what each of the 115 results holds", () => {
    expect(marketingTools).toHaveLength(115);
    expect(marketingTools.flatMap(descriptionProblems)).toEqual([]);
  });

  it("state the caveats the upstream documents", () => {
    const description = (name: string) => marketingTool(`MarketingApi.${name}`)?.description ?? "";
    expect(description("DeleteManualSegment")).toMatch(/manual segment.*dynamic.*UI/);
    expect(description("RemoveUnusedSnippet")).toContain("refuses (400) while a message uses it");
    expect(description("GetBroadcastStatus")).toContain("the id TriggerBroadcastMessage returned");
  });
});

describe("output schemas", () => {
  const declared = (name: string) => Object.keys(marketingTool(`MarketingApi.${name}`)?.output.shape ?? {});
  const served = (name: string) => toMcpTool(marketingTool(`MarketingApi.${name}`) as AnyToolDefinition);

  // A free-form answer (a collection's rows) documents no fields to declare.
  const documented = ENDPOINTS.filter(
    (spec) => typeof spec.response !== "object" || Object.keys(spec.response).length,
  );

  it.each(documented.map((spec) => [spec.name, spec] as const))(
    "%s declares every top-level field of its example answer",
    (name, spec) => {
      const answer = toResult(spec, sampleArgs(spec), EXAMPLES.responses[name]?.body);
      expect(declared(name.slice("MarketingApi.".length))).toEqual(
        expect.arrayContaining(Object.keys(answer)),
      );
    },
  );

  it("declare the documented fields, with next turned into the paging fields", () => {
    expect(declared("GetSegmentInfo")).toEqual(["segment"]);
    expect(declared("GetSegmentMembers")).toEqual([
      "ids",
      "identifiers",
      "more",
      "next_page_token",
      "next_page_parameter",
    ]);
    expect(declared("FindSuppressedEmailAddresses")).toEqual([
      "category",
      "suppressions",
      "limit",
      "offset",
      "more",
      "next_offset",
    ]);
    expect(declared("DeleteManualSegment")).toEqual(["ok"]);
    const paging = marketingTool("MarketingApi.FilterPeopleInWorkspace")?.output.shape.more;
    // Schema mode answers { schema, instructions }: a two-mode tool's paging fields are optional.
    expect(paging?.safeParse(undefined).success).toBe(true);
  });

  it("declare { result } for an array answer and { ok } for an empty one", () => {
    const spec = ENDPOINTS.find((s) => s.name === "MarketingApi.GetAllSegments") as EndpointSpec;
    const array = { ...spec, response: "array" as const };
    expect(resultFields(array)).toEqual({ result: "array" });
    expect(Object.keys(toResult(array, {}, [{ id: 1 }]))).toEqual(["result"]);
    const empty = { ...spec, response: "empty" as const };
    expect(resultFields(empty)).toEqual({ ok: "boolean" });
    expect(toResult(empty, {}, undefined)).toEqual({ ok: true });
  });

  it("declare each field's documented JSON type, arrays and objects free-form", () => {
    const properties = (name: string) => served(name).outputSchema?.properties ?? {};
    expect(properties("GetSegmentInfo")).toEqual({ segment: { type: "object", additionalProperties: true } });
    expect(properties("GetSegmentCustomerCount")).toEqual({ count: { type: "number" } });
    expect(properties("GetSegmentMembers")).toMatchObject({ ids: { type: "array" } });
    expect(properties("DeleteManualSegment")).toEqual({ ok: { type: "boolean" } });
    // A client mapping schemas onto a typed dialect cannot take an empty schema (any value).
    const untyped = marketingTools.flatMap((tool) =>
      Object.entries(toMcpTool(tool).outputSchema?.properties ?? {})
        .filter(([, property]) => !Object.keys(property as object).length)
        .map(([field]) => `${tool.name}.${field}`),
    );
    expect(untyped).toEqual([]);
  });

  it.each(ENDPOINTS.map((spec) => [spec.name, spec] as const))(
    "%s: its example answer, as a result, is valid against its output schema",
    (name, spec) => {
      const answer = toResult(spec, sampleArgs(spec), EXAMPLES.responses[name]?.body);
      const validate = new Ajv({ strict: false }).compile(
        served(name.slice("MarketingApi.".length)).outputSchema ?? {},
      );
      expect(validate(compact(answer)), JSON.stringify(validate.errors)).toBe(true);
    },
  );
});
