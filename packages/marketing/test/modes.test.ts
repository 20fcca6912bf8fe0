import { okData, useToolkitSandbox } from "@toolkits/core/testing";
import { sampleArgs } from "@toolkits/testkit/marketing-samples";
import { Ajv } from "ajv";
import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { ENDPOINTS, type EndpointSpec, marketingToolkit, REGIONS } from "../src/index.js";
import { EXAMPLES } from "../src/sandbox/index.js";
import { MARKETING } from "./support/kit.js";

const box = useToolkitSandbox(marketingToolkit, MARKETING);
const modeTools = ENDPOINTS.filter((spec) => spec.mode);
const short = (spec: EndpointSpec) => spec.name.slice("MarketingApi.".length);
const rows = (specs: EndpointSpec[]) => specs.map((spec) => [short(spec), spec] as const);
const METHOD = { GET: http.get, POST: http.post, PUT: http.put, DELETE: http.delete } as const;

/** Answers every request to the tool's endpoint with HTTP 500. */
function failWith500(spec: EndpointSpec) {
  const path = spec.path.replace(/\{([^}]+)\}/g, ":$1");
  box.server.use(
    METHOD[spec.method](`${REGIONS.us}${path}`, () =>
      HttpResponse.json({ meta: { error: "internal error" } }, { status: 500 }),
    ),
  );
}

describe("two-mode tools", () => {
  it("are the 28 tools the spec marks [M]", () => {
    expect(modeTools).toHaveLength(28);
  });

  it.each(rows(modeTools))(
    "%s: schema mode returns a compilable JSON Schema object and sends nothing",
    async (name) => {
      const result = okData(await box.call(`MarketingApi.${name}`, { mode: "get_request_schema" }));
      expect(result.schema).toBeTypeOf("object");
      expect(result.instructions).toMatch(/^Build a body .* mode "execute", request_body/);
      const compile = () =>
        new Ajv({ strict: false, logger: false, validateFormats: false }).compile(result.schema as object);
      expect(compile).not.toThrow();
      expect(JSON.stringify(result.schema)).not.toMatch(/\bcio_(id|object_id)\b/);
      expect(box.requests).toHaveLength(0);
    },
  );

  it("serves the send schemas with the neutral svc_id identifier", async () => {
    const result = okData(
      await box.call("MarketingApi.SendTransactionalEmail", { mode: "get_request_schema" }),
    );
    const schema = JSON.stringify(result.schema);
    expect(schema).toContain('"required":["svc_id"]');
    expect(schema).toContain("`id`, `email`, or `svc_id`");
  });

  it("names the execute-mode parameters in the instructions", async () => {
    const result = okData(
      await box.call("MarketingApi.UpdateCampaignAction", { mode: "get_request_schema" }),
    );
    expect(result.instructions).toMatch(/JSON string, and campaign_id, action_id\.$/);
  });

  it.each(rows(modeTools))(
    "%s: an invalid body is refused with pointers and nothing is sent",
    async (name, spec) => {
      const args = { ...sampleArgs(spec), request_body: "42" };
      const result = await box.call(`MarketingApi.${name}`, args);
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(
        /^invalid_input: request_body does not match the schema of .*nothing was sent\. Violations: \/: must be object/,
      );
      expect(box.requests).toHaveLength(0);
    },
  );

  it("lists every violation with its JSON pointer", async () => {
    const body = { transactional_message_id: 44, identifiers: { id: 7 }, send_at: "tomorrow", to: 5 };
    const result = await box.call("MarketingApi.SendTransactionalSms", {
      mode: "execute",
      request_body: JSON.stringify(body),
    });
    expect(result.isError).toBe(true);
    const message = result.text;
    expect(message).toContain("/identifiers/id: must be string");
    expect(message).toContain("/send_at: must be integer");
    expect(message).toContain("/to: must be string");
    expect(box.requests).toHaveLength(0);
  });

  it("refuses a body that is not JSON with the parse error and a pointer to schema mode", async () => {
    const result = await box.call("MarketingApi.CreateManualSegment", {
      mode: "execute",
      request_body: "{name: 'x'}",
    });
    expect(result.text).toMatch(
      /^invalid_input: request_body is not valid JSON \(.+\); nothing was sent\. Call MarketingApi\.CreateManualSegment with mode get_request_schema/,
    );
    expect(box.requests).toHaveLength(0);
  });

  it("lists the missing execute-mode parameters and request_body", async () => {
    const result = await box.call("MarketingApi.UpdateNewsletterTestTranslation", {
      mode: "execute",
      newsletter_identifier: 3,
    });
    expect(result.text).toBe(
      "invalid_input: MarketingApi.UpdateNewsletterTestTranslation in execute mode needs ab_test_group_id, newsletter_language_tag, request_body; nothing was sent. Call with mode get_request_schema to see the body's schema.",
    );
    expect(box.requests).toHaveLength(0);
  });

  it.each(rows(modeTools))("%s: a valid body is sent exactly once", async (name, spec) => {
    okData(await box.call(`MarketingApi.${name}`, sampleArgs(spec)));
    expect(box.requests).toHaveLength(1);
    expect(JSON.parse(box.requests[0]?.body ?? "")).toEqual(EXAMPLES.requests[spec.name]);
  });

  const unsafe = modeTools.filter((spec) => !spec.hints.idempotent);
  it.each(rows(modeTools))("%s: is sent exactly once when the upstream answers 500", async (name, spec) => {
    failWith500(spec);
    const result = await box.call(`MarketingApi.${name}`, sampleArgs(spec));
    expect(result.isError).toBe(true);
    expect(result.text).toContain("failed with HTTP 500: internal error.");
    expect(result.text).toContain("so it was not repeated");
    expect(box.requests).toHaveLength(1);
  });

  it("covers the ten sends, triggers, imports, exports and creates among them", () => {
    expect(unsafe.map(short).sort()).toEqual([
      "CreateManualSegment",
      "CreateNewCollection",
      "CreateWebhook",
      "ExportCustomerData",
      "ExportDeliveryData",
      "SendTransactionalEmail",
      "SendTransactionalPushNotification",
      "SendTransactionalSms",
      "TriggerBroadcastMessage",
      "UploadCsvToPlatform",
    ]);
  });

  it("ignores execute-mode parameters and request_body in schema mode", async () => {
    const result = await box.call("MarketingApi.TriggerBroadcastMessage", {
      mode: "get_request_schema",
      request_body: "not json",
    });
    expect(okData(result).schema).toBeTypeOf("object");
    expect(box.requests).toHaveLength(0);
  });
});
