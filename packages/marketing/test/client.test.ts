import { okData, requestContract, useToolkitSandbox } from "@toolkits/core/testing";
import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { marketingToolkit, resolveUpstream } from "../src/index.js";
import { SANDBOX_API_KEY } from "../src/sandbox/index.js";
import { MARKETING, MARKETING_API, MARKETING_QUIRKS } from "./support/kit.js";

const KEY = { MARKETING_API_KEY: SANDBOX_API_KEY };
// A configured MARKETING_API_URL: the contract takes it as one of the API's hosts.
const LOCAL = "http://localhost:4010";
const box = useToolkitSandbox(marketingToolkit, {
  ...MARKETING,
  contract: requestContract(MARKETING_API, {
    ...MARKETING_QUIRKS,
    hosts: [...MARKETING_QUIRKS.hosts, LOCAL],
  }),
});

/** Answers each response in turn at `url`, then repeats the last. */
function sequence(method: "get" | "post", url: string, responses: (() => Response)[]) {
  let index = 0;
  box.server.use(
    http[method](url, () => (responses[Math.min(index++, responses.length - 1)] as () => Response)()),
  );
}

describe("region", () => {
  const setting = (values: Record<string, string>) => ({ setting: (name: string) => values[name] });

  it.each([
    [{}, "https://api.customer.io", "us"],
    [{ MARKETING_REGION: "eu" }, "https://api-eu.customer.io", "eu"],
    [{ MARKETING_REGION: "EU " }, "https://api-eu.customer.io", "eu"],
    [
      { MARKETING_REGION: "eu", MARKETING_API_URL: "http://localhost:4010/" },
      "http://localhost:4010",
      "custom",
    ],
  ])("settings %o resolve to %s", (values, baseUrl, region) => {
    expect(resolveUpstream(setting(values))).toEqual({ baseUrl, region });
  });

  it("sends EU workspaces' requests to the EU host", async () => {
    box.server.use(
      http.get("https://api-eu.customer.io/v1/workspaces", () => HttpResponse.json({ workspaces: [] })),
    );
    const result = await box.call("MarketingApi.ListWorkspaces", {}, { ...KEY, MARKETING_REGION: "eu" });
    expect(okData(result)).toEqual({ workspaces: [] });
    expect(new URL(box.requests[0]?.url ?? "").origin).toBe("https://api-eu.customer.io");
  });

  it("lets MARKETING_API_URL win over the region", async () => {
    box.server.use(http.get(`${LOCAL}/v1/workspaces`, () => HttpResponse.json({ workspaces: [{ id: 1 }] })));
    const env = { ...KEY, MARKETING_REGION: "eu", MARKETING_API_URL: LOCAL };
    expect(okData(await box.call("MarketingApi.ListWorkspaces", {}, env))).toEqual({
      workspaces: [{ id: 1 }],
    });
  });

  it("refuses an unknown region naming the allowed ones, sending nothing", async () => {
    const result = await box.call("MarketingApi.ListWorkspaces", {}, { ...KEY, MARKETING_REGION: "mars" });
    expect(result.text).toBe(
      'invalid_input: MARKETING_REGION is "mars"; allowed: us, eu. Fix the server\'s configuration.',
    );
    expect(box.requests).toHaveLength(0);
  });

  it("names the EU region in a 401", async () => {
    box.server.use(
      http.get("https://api-eu.customer.io/v1/workspaces", () =>
        HttpResponse.json({ meta: { error: "Unauthorized" } }, { status: 401 }),
      ),
    );
    const result = await box.call("MarketingApi.ListWorkspaces", {}, { ...KEY, MARKETING_REGION: "eu" });
    expect(result.text).toContain("EU region (MARKETING_REGION=eu; the other is us)");
  });

  it("answers unauthenticated with setup advice when the key is missing", async () => {
    const result = await box.call("MarketingApi.ListWorkspaces", {}, {});
    expect(result.text).toContain("unauthenticated: The secret MARKETING_API_KEY is not configured.");
    expect(box.requests).toHaveLength(0);
  });
});

describe("upstream errors", () => {
  it.each([
    [{ meta: { error: "Invalid phone number format" } }, "Invalid phone number format"],
    [
      { meta: { errors: ["language not supported", "topic missing"] } },
      "language not supported; topic missing",
    ],
    [
      {
        errors: [
          {
            detail: "bad per_user_data",
            status: "422",
            source: { pointer: "/data/attributes/per_user_data" },
          },
        ],
      },
      "bad per_user_data (at /data/attributes/per_user_data)",
    ],
  ])("turns the error body %o into one message", async (errorBody, message) => {
    box.server.use(
      http.get("https://api.customer.io/v1/workspaces", () => HttpResponse.json(errorBody, { status: 422 })),
    );
    const result = await box.call("MarketingApi.ListWorkspaces");
    expect(result.text).toBe(`invalid_input: GET /v1/workspaces failed with HTTP 422: ${message}.`);
  });

  it("says which tool lists valid ids on a 404", async () => {
    box.server.use(
      http.get("https://api.customer.io/v1/campaigns/:id", () =>
        HttpResponse.json({ meta: { error: "not found" } }, { status: 404 }),
      ),
    );
    const result = await box.call("MarketingApi.GetCampaignMetadata", { campaign_id: 99 });
    expect(result.text).toBe(
      "not_found: GET /v1/campaigns/{campaign_id} failed with HTTP 404: not found. Check the ids; MarketingApi.GetCampaignList lists valid ones.",
    );
  });
});

describe("retries", () => {
  it("retries a read after a 503", async () => {
    sequence("get", "https://api.customer.io/v1/workspaces", [
      () => new HttpResponse(null, { status: 503, headers: { "retry-after": "0" } }),
      () => HttpResponse.json({ workspaces: [] }),
    ]);
    okData(await box.call("MarketingApi.ListWorkspaces"));
    expect(box.requests).toHaveLength(2);
  });

  it("retries a send refused with 429, since it did not run", async () => {
    sequence("post", "https://api.customer.io/v1/send/email", [
      () => new HttpResponse(null, { status: 429, headers: { "retry-after": "0" } }),
      () => HttpResponse.json({ delivery_id: "d1", queued_at: 1 }),
    ]);
    const body = { transactional_message_id: 44, to: "p@example.com", identifiers: { id: "1" } };
    const result = okData(
      await box.call("MarketingApi.SendTransactionalEmail", {
        mode: "execute",
        request_body: JSON.stringify(body),
      }),
    );
    expect(result).toEqual({ delivery_id: "d1", queued_at: 1 });
    expect(box.requests).toHaveLength(2);
  });

  it("does not repeat a read-only search POST after a 500: a body is sent at most once", async () => {
    sequence("post", "https://api.customer.io/v1/customers", [
      () => new HttpResponse(null, { status: 500 }),
      () => HttpResponse.json({ identifiers: [], ids: [], next: "" }),
    ]);
    const args = { mode: "execute", request_body: '{"filter":{"and":[]}}' };
    const result = await box.call("MarketingApi.FilterPeopleInWorkspace", args);
    expect(result.isError).toBe(true);
    expect(result.text).toContain("so it was not repeated");
    expect(box.requests).toHaveLength(1);
  });

  it("tells the model a trigger is limited to one call per 10 seconds", async () => {
    box.server.use(
      http.post(
        "https://api.customer.io/v1/campaigns/:id/triggers",
        () => new HttpResponse(null, { status: 429, headers: { "retry-after": "60" } }),
      ),
    );
    const result = await box.call("MarketingApi.TriggerBroadcastMessage", {
      mode: "execute",
      broadcast_id: 3,
      request_body: "{}",
    });
    expect(result.text).toMatch(
      /^rate_limited: .*HTTP 429\. Broadcast triggers are limited to 1 request per 10 seconds\. Retry after 60 s\.$/,
    );
    expect(box.requests).toHaveLength(1);
  });
});
