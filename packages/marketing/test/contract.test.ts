import { okData, useToolkitSandbox } from "@toolkits/core/testing";
import { sampleArgs } from "@toolkits/testkit/marketing-samples";
import { describe, expect, it } from "vitest";
import { ENDPOINTS, marketingToolkit } from "../src/index.js";
import { MARKETING, marketingContract } from "./support/kit.js";

const box = useToolkitSandbox(marketingToolkit, MARKETING);

describe("every tool against the vendored API description", () => {
  it("covers all 115 described operations, one tool each", () => {
    expect(ENDPOINTS).toHaveLength(115);
    expect(new Set(ENDPOINTS.map((spec) => spec.operationId))).toEqual(
      new Set(marketingContract.operations.map((operation) => operation.id)),
    );
  });

  it("flags requests the description does not allow", () => {
    const API = "https://api.customer.io";
    const problems = (method: string, url: string, body = "", headers: Record<string, string> = {}) =>
      marketingContract.problems({
        method,
        url,
        headers: {
          authorization: "Bearer k",
          accept: "application/json",
          "content-type": "application/json",
          ...headers,
        },
        body,
      });
    expect(problems("GET", `${API}/v1/segments/7/membership?limit=30001&begin=1`)).toEqual([
      "GET /v1/segments/{segment_id}/membership: limit=30001 is above the maximum 30000",
      "GET /v1/segments/{segment_id}/membership: query parameter begin is not declared",
    ]);
    expect(problems("GET", `${API}/v1/segments/seven`)).toEqual([
      "GET /v1/segments/{segment_id}: {segment_id}=seven is not an integer",
    ]);
    expect(
      problems("GET", `${API}/v1/campaigns/1/metrics?version=3`, "", {
        authorization: "",
        accept: "text/html",
      }),
    ).toEqual([
      "GET /v1/campaigns/{campaign_id}/metrics: version=3 is not one of 1, 2",
      "GET /v1/campaigns/{campaign_id}/metrics: header authorization does not match /^Bearer \\S+$/",
      "GET /v1/campaigns/{campaign_id}/metrics: header accept does not match /application\\/json/",
    ]);
    expect(problems("POST", `${API}/v1/segments`, '{"segment":{}}')).toEqual([
      "POST /v1/segments: body /segment must have required property 'name'",
    ]);
    expect(problems("PATCH", `${API}/v1/segments`)).toEqual([
      `PATCH ${API}/v1/segments is not an operation of Journeys App API`,
    ]);
    expect(problems("GET", "https://api.customer.example/v1/segments")).toEqual([
      "GET /v1/segments: https://api.customer.example is not a server of Journeys App API",
    ]);
    expect(problems("GET", "https://api-eu.customer.io/v1/segments")).toEqual([]);
  });

  it.each(ENDPOINTS.map((spec) => [spec.name, spec] as const))(
    "%s sends one request the description allows",
    async (_, spec) => {
      await box.reset();
      const args = sampleArgs(spec);
      const result = okData(await box.call(spec.name, args));
      expect(result).toBeTypeOf("object");
      expect(box.requests).toHaveLength(1);
      const request = box.requests[0];
      if (!request) throw new Error("no upstream request recorded");
      expect(marketingContract.problems(request)).toEqual([]);
      expect(marketingContract.operationOf(request)?.id).toBe(spec.operationId);
      expect(request.method).toBe(spec.method);
      expect(request.headers.authorization).toBe("Bearer sandbox-marketing-key");
      for (const param of spec.params.filter((p) => p.in === "query" && args[p.name] !== undefined)) {
        expect(box.queries()[0]?.has(param.upstream ?? "")).toBe(true);
      }
    },
  );
});
