import { ToolError } from "@toolkits/core";
import { useToolkitSandbox } from "@toolkits/core/testing";
import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { MAX_BODY_DEPTH } from "../src/body.js";
import { bodyToUpstream, marketingToolkit, REGIONS, resultToNeutral } from "../src/index.js";
import { SANDBOX_API_KEY } from "../src/sandbox/index.js";
import { MARKETING } from "./support/kit.js";

/** Every name `Object.prototype` answers to, `__proto__` included. */
const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype);

/** An object as JSON.parse builds it from text: each key an own property, even `__proto__`. */
function fromJson(entries: readonly [string, unknown][]): Record<string, unknown> {
  return JSON.parse(
    `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`).join(",")}}`,
  );
}

/** `[key, value]` for every own property, in order: what a JSON reader of the object would see. */
function ownEntries(value: unknown): [string, unknown][] {
  const object = value as object;
  return Object.getOwnPropertyNames(object).map((key) => [
    key,
    Object.getOwnPropertyDescriptor(object, key)?.value,
  ]);
}

/** A record whose keys are all the prototype names, each with a value naming it, plus one id. */
const attributes = (idKey: string) => [
  ...PROTOTYPE_NAMES.map((name): [string, unknown] => [name, `value of ${name}`]),
  [idKey, "a3000001"] as [string, unknown],
];

describe("id renaming with keys named like Object.prototype members", () => {
  it.each(PROTOTYPE_NAMES)("sends a body key named %s under its own name with its own value", (name) => {
    const body = fromJson([
      [name, "sent as is"],
      ["svc_id", "a1"],
      ["nested", { [name]: { svc_id: "a2" } }],
    ]);
    const sent = bodyToUpstream(body);
    expect(Object.getPrototypeOf(sent)).toBe(Object.prototype);
    expect(ownEntries(sent)).toEqual([
      [name, "sent as is"],
      ["cio_id", "a1"],
      ["nested", { [name]: { cio_id: "a2" } }],
    ]);
    expect(ownEntries((sent as Record<string, unknown>).nested)).toEqual([[name, { cio_id: "a2" }]]);
  });

  it.each(PROTOTYPE_NAMES)("returns an upstream attribute named %s with the upstream's value", (name) => {
    const answer = fromJson([
      [name, "from upstream"],
      ["cio_id", "a1"],
    ]);
    const shown = resultToNeutral(answer);
    expect(ownEntries(shown)).toEqual([
      [name, "from upstream"],
      ["svc_id", "a1"],
    ]);
    expect(JSON.stringify(shown)).toBe(`{${JSON.stringify(name)}:"from upstream","svc_id":"a1"}`);
  });

  it.each([
    [{ svc_id: "a", cio_id: "b" }, "svc_id and cio_id at /"],
    [
      { identifiers: { cio_object_id: "o", svc_object_id: "p" } },
      "svc_object_id and cio_object_id at /identifiers",
    ],
    [{ to: [{}, { "a/b": { svc_id: "a", cio_id: "b" } }] }, "svc_id and cio_id at /to/1/a~1b"],
  ])("refuses a body holding two names of one id (%o) instead of dropping one", (body, where) => {
    const refusal = (() => {
      try {
        bodyToUpstream(body);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(refusal).toBeInstanceOf(ToolError);
    expect((refusal as ToolError).kind).toBe("invalid_input");
    expect((refusal as ToolError).message).toContain(`both ${where}`);
    expect((refusal as ToolError).message).toContain("nothing was sent");
  });

  it("keeps an answer's keys as the upstream named them when a custom svc_id sits beside cio_id", () => {
    expect(ownEntries(resultToNeutral({ cio_id: "a", svc_id: "custom" }))).toEqual([
      ["cio_id", "a"],
      ["svc_id", "custom"],
    ]);
  });
});

describe("the marketing tools and sandbox with keys named like Object.prototype members", () => {
  // No contract check: the last tests ask the sandbox for suppression types the API does not have.
  const box = useToolkitSandbox(marketingToolkit, { ...MARKETING, contract: undefined });

  const execute = (tool: string, body: unknown, extra: Record<string, unknown> = {}) =>
    box.call(tool, {
      mode: "execute",
      request_body: typeof body === "string" ? body : JSON.stringify(body),
      ...extra,
    });

  it("carries exactly the keys sent to the upstream and back from the sandbox's stored collection", async () => {
    const row = fromJson(attributes("svc_id"));
    const created = await execute(
      "MarketingApi.CreateNewCollection",
      `{"name":"keys","data":[${JSON.stringify(row)}]}`,
    );
    expect(created.isError, created.text).toBe(false);
    const upstreamBody = JSON.parse(box.requests[0]?.body ?? "{}");
    expect(ownEntries(upstreamBody.data[0])).toEqual(attributes("cio_id"));
    const { collection } = created.data as { collection: { id: number } };
    const contents = await box.call("MarketingApi.RetrieveCollectionContents", {
      collection_identifier: collection.id,
    });
    expect(contents.isError, contents.text).toBe(false);
    expect(ownEntries(JSON.parse(contents.text).result[0])).toEqual(attributes("svc_id"));
  });

  it("shows an upstream's attributes named like prototype members with exactly the upstream's values", async () => {
    const customer = { id: "1", attributes: fromJson(attributes("cio_id")) };
    box.server.use(
      http.get(
        `${REGIONS.us}/v1/customers/:id/attributes`,
        () =>
          new HttpResponse(JSON.stringify({ customer }), { headers: { "content-type": "application/json" } }),
      ),
    );
    const result = await box.call("MarketingApi.GetCustomerProfileAttributes", {
      customer_identifier: "1",
    });
    expect(result.isError, result.text).toBe(false);
    expect(ownEntries(JSON.parse(result.text).customer.attributes)).toEqual(attributes("svc_id"));
    const { customer: shown } = result.data as { customer: { attributes: Record<string, unknown> } };
    const structured = shown.attributes;
    for (const name of PROTOTYPE_NAMES) {
      expect(Object.getOwnPropertyDescriptor(structured, name)?.value, name).toBe(`value of ${name}`);
    }
  });

  it("refuses a body with both svc_id and cio_id in one object, naming both, before sending", async () => {
    const result = await execute("MarketingApi.CreateNewCollection", {
      name: "clash",
      data: [{ svc_id: "a3000001", cio_id: "a3000002" }],
    });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^invalid_input: request_body holds both svc_id and cio_id at \/data\/0/);
    expect(box.requests).toEqual([]);
  });

  it(`refuses a body nested more than ${MAX_BODY_DEPTH} levels deep as invalid_input, before sending`, async () => {
    const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;
    // The body object and the data array are two levels; the rest is the row.
    const body = (depth: number) => `{"name":"deep","data":[${nested(depth - 2)}]}`;
    const deep = await execute("MarketingApi.CreateNewCollection", body(100_000));
    expect(deep.isError).toBe(true);
    expect(deep.text).toMatch(
      /^invalid_input: request_body nests arrays and objects more than 100 levels deep/,
    );
    const justOver = await execute("MarketingApi.CreateNewCollection", body(MAX_BODY_DEPTH + 1));
    expect(justOver.text).toMatch(/^invalid_input: request_body nests/);
    expect(box.requests).toEqual([]);
    const deepest = await execute("MarketingApi.CreateNewCollection", body(MAX_BODY_DEPTH));
    expect(deepest.isError, deepest.text).toBe(false);
    expect(box.requests).toHaveLength(1);
  });

  it.each(PROTOTYPE_NAMES)(
    "the sandbox answers suppression type %s as unknown, not with a crash",
    async (name) => {
      const url = `${REGIONS.us}/v1/esp/suppression/${encodeURIComponent(name)}`;
      const headers = { authorization: `Bearer ${SANDBOX_API_KEY}` };
      const listed = await fetch(url, { headers });
      expect(listed.status).toBe(200);
      expect(await listed.json()).toEqual({ category: name, suppressions: [] });
      const added = await fetch(`${url}/someone%40example.com`, { method: "POST", headers });
      expect(added.status).toBe(404);
    },
  );
});
