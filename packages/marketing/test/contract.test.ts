import { describe, expect, it } from "vitest";
import { ENDPOINTS } from "../src/index.js";
import { contractProblems, description } from "./support/contract.js";
import { call, connect, ok, useSandbox } from "./support/harness.js";
import { sampleArgs } from "./support/samples.js";

const sandbox = useSandbox();

describe("every tool against the vendored API description", () => {
  it("covers all 115 described operations, one tool each", () => {
    const described = Object.values(description.paths).flatMap((methods) =>
      Object.values(methods).map((operation) => operation.operationId),
    );
    expect(ENDPOINTS).toHaveLength(115);
    expect(new Set(ENDPOINTS.map((spec) => spec.operationId))).toEqual(new Set(described));
  });

  it("flags requests the description does not allow", async () => {
    const seen = (method: string, url: string, body = "", auth = "Bearer k") => ({
      method,
      url: new URL(url),
      headers: new Headers({
        authorization: auth,
        accept: "application/json",
        "content-type": "application/json",
      }),
      body: Promise.resolve(body),
    });
    const problems = async (request: ReturnType<typeof seen>) => (await contractProblems(request)).problems;
    expect(
      await problems(seen("GET", "https://api.customer.io/v1/segments/7/membership?limit=30001&begin=1")),
    ).toEqual(["query limit above 30000: 30001", "query begin is not a parameter of getSegmentMembership"]);
    expect(await problems(seen("GET", "https://api.customer.io/v1/segments/seven"))).toEqual([
      "path segment_id is not an integer: seven",
    ]);
    expect(
      await problems(seen("GET", "https://api.customer.io/v1/campaigns/1/metrics?version=3", "", "")),
    ).toEqual(["query version is not one of 1, 2: 3", "Authorization is not a Bearer token"]);
    expect(await problems(seen("POST", "https://api.customer.io/v1/segments", '{"segment":{}}'))).toEqual([
      "body /segment must have required property 'name'",
    ]);
    expect(await problems(seen("PATCH", "https://api.customer.io/v1/segments"))).toEqual([
      "no operation for PATCH /v1/segments",
    ]);
  });

  it.each(ENDPOINTS.map((spec) => [spec.name, spec] as const))(
    "%s sends one request the description allows",
    async (_, spec) => {
      sandbox.reset();
      const client = await connect();
      const args = sampleArgs(spec);
      const result = ok(await call(client, spec.name.slice("MarketingApi.".length), args));
      expect(result).toBeTypeOf("object");
      expect(sandbox.seen).toHaveLength(1);
      const request = sandbox.seen[0];
      if (!request) throw new Error("no upstream request recorded");
      const { operationId, problems } = await contractProblems(request);
      expect(problems).toEqual([]);
      expect(operationId).toBe(spec.operationId);
      expect(request.method).toBe(spec.method);
      expect(request.headers.get("authorization")).toBe("Bearer sandbox-marketing-key");
      for (const param of spec.params.filter((p) => p.in === "query" && args[p.name] !== undefined)) {
        expect(request.url.searchParams.has(param.upstream ?? "")).toBe(true);
      }
    },
  );
});
