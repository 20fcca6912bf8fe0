import { okData, useToolkitSandbox } from "@toolkits/core/testing";
import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import {
  bodyToUpstream,
  marketingToolkit,
  resultToNeutral,
  schemaToNeutral,
  upstreamIdType,
  upstreamPersonId,
} from "../src/index.js";
import { MARKETING } from "./support/kit.js";

const box = useToolkitSandbox(marketingToolkit, MARKETING);

describe("id translation tables", () => {
  it.each([
    ["svc_id", "cio_id"],
    ["svc_object_id", "cio_object_id"],
    ["id", "id"],
    ["email", "email"],
    ["object_id", "object_id"],
  ])("id type %s goes upstream as %s", (neutral, upstream) => {
    expect(upstreamIdType(neutral)).toBe(upstream);
  });

  it.each([
    ["svc_03000010", "cio_03000010"],
    ["03000010", "cio_03000010"],
    ["cio_03000010", "cio_03000010"],
  ])("person identifier %s of kind svc_id goes upstream as %s", (neutral, upstream) => {
    expect(upstreamPersonId(neutral)).toBe(upstream);
  });

  it.each([
    [{ identifiers: { svc_id: "a1" } }, { identifiers: { cio_id: "a1" } }],
    [{ to: [{ svc_object_id: "o1" }] }, { to: [{ cio_object_id: "o1" }] }],
    [
      { cio_subscription_preferences: { svc_id: "x" }, note: "svc_id" },
      { cio_subscription_preferences: { cio_id: "x" }, note: "svc_id" },
    ],
  ])("request body %o goes upstream as %o (keys only)", (neutral, upstream) => {
    expect(bodyToUpstream(neutral)).toEqual(upstream);
  });

  it.each([
    [{ identifiers: [{ cio_id: "a1", id: "1" }] }, { identifiers: [{ svc_id: "a1", id: "1" }] }],
    [
      { object: { identifiers: { cio_object_id: "o1" } } },
      { object: { identifiers: { svc_object_id: "o1" } } },
    ],
    [
      {
        cio_relationships: [1],
        cio_subscription_preferences: "{}",
        _cio_subscription_preferences_computed: "{}",
      },
      {
        cio_relationships: [1],
        cio_subscription_preferences: "{}",
        _cio_subscription_preferences_computed: "{}",
      },
    ],
    [{ name: "cio_id" }, { name: "cio_id" }],
  ])("upstream answer %o comes back as %o", (upstream, neutral) => {
    expect(resultToNeutral(upstream)).toEqual(neutral);
  });

  it("translates schemas: keys, required entries, titles and descriptions, but no other cio_ names", () => {
    const upstream = {
      description: "One of `id`, `email`, or `cio_id`; see cio_subscription_preferences.",
      oneOf: [{ title: "cio_id", required: ["cio_id"], properties: { cio_id: { type: "string" } } }],
    };
    expect(schemaToNeutral(upstream)).toEqual({
      description: "One of `id`, `email`, or `svc_id`; see cio_subscription_preferences.",
      oneOf: [{ title: "svc_id", required: ["svc_id"], properties: { svc_id: { type: "string" } } }],
    });
  });
});

describe("id translation through the tools", () => {
  it.each([
    [
      "GetCustomerSegments",
      { customer_identifier: "svc_03000010", customer_id_type: "svc_id" },
      "/v1/customers/cio_03000010/segments",
      { id_type: "cio_id" },
    ],
    [
      "GetCustomerSegments",
      { customer_identifier: "svc_03000010", customer_id_type: "id" },
      "/v1/customers/svc_03000010/segments",
      { id_type: "id" },
    ],
    [
      "GetCustomerProfileAttributes",
      { customer_identifier: "a3000001", customer_id_type: "svc_id" },
      "/v1/customers/cio_a3000001/attributes",
      { id_type: "cio_id" },
    ],
    [
      "ListRecentActivities",
      { person_identifier: "svc_42", customer_id_type: "svc_id" },
      "/v1/activities",
      { customer_id: "cio_42", id_type: "cio_id", deleted: "false", limit: "10" },
    ],
    [
      "GetRelatedPeople",
      { object_type_identifier: 1, object_identifier: "svc_x", identification_type: "svc_object_id" },
      "/v1/objects/1/svc_x/relationships",
      { id_type: "cio_object_id" },
    ],
    [
      "GetObjectAttributes",
      { object_type_identifier: 1, object_identifier: "acme" },
      "/v1/objects/1/acme/attributes",
      { id_type: "object_id" },
    ],
  ])("%s %o → %s %o", async (tool, args, path, query) => {
    okData(await box.call(`MarketingApi.${tool}`, args));
    const seen = new URL(box.requests[0]?.url ?? "");
    expect(seen.pathname).toBe(path);
    expect(Object.fromEntries(seen.searchParams)).toEqual(query);
  });

  it("sends body identifiers upstream as cio_id", async () => {
    const body = { transactional_message_id: 44, to: "+15550100", identifiers: { svc_id: "a3000001" } };
    okData(
      await box.call("MarketingApi.SendTransactionalSms", {
        mode: "execute",
        request_body: JSON.stringify(body),
      }),
    );
    const sent = JSON.parse(box.requests[0]?.body ?? "{}");
    expect(sent.identifiers).toEqual({ cio_id: "a3000001" });
  });

  it("returns cio_id and cio_object_id keys as svc_ names, other cio_ attributes untouched", async () => {
    const person = okData(
      await box.call("MarketingApi.GetCustomerProfileAttributes", { customer_identifier: "1" }),
    );
    const attributes = (person.customer as { attributes: Record<string, unknown> }).attributes;
    expect(attributes.svc_id).toBe("03000001");
    expect(attributes).not.toHaveProperty("cio_id");
    expect(attributes).toHaveProperty("cio_subscription_preferences");
    const object = okData(
      await box.call("MarketingApi.GetObjectAttributes", {
        object_type_identifier: 1,
        object_identifier: "acme",
      }),
    );
    expect((object.object as { identifiers: unknown }).identifiers).toMatchObject({
      svc_object_id: "a3000001",
    });
  });

  it("feeds a returned svc_id back unchanged", async () => {
    box.server.use(
      http.get("https://api.customer.io/v1/customers", () =>
        HttpResponse.json({ results: [{ email: "p@example.com", id: "7", cio_id: "b2000002" }] }),
      ),
    );
    const found = okData(
      await box.call("MarketingApi.GetPeopleByEmail", { search_email_address: "p@example.com" }),
    );
    const svcId = (found.results as { svc_id: string }[])[0]?.svc_id;
    okData(
      await box.call("MarketingApi.GetCustomerSegments", {
        customer_identifier: svcId,
        customer_id_type: "svc_id",
      }),
    );
    expect(new URL(box.requests[1]?.url ?? "").pathname).toBe("/v1/customers/cio_b2000002/segments");
  });
});
