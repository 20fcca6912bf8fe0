import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { resolveUpstream } from "../src/index.js";
import { SANDBOX_API_KEY } from "../src/sandbox/index.js";
import { call, connect, ok, text, useSandbox } from "./support/harness.js";

const sandbox = useSandbox();
const KEY = { MARKETING_API_KEY: SANDBOX_API_KEY };

/** Answers each response in turn at `url`, then repeats the last. */
function sequence(method: "get" | "post", url: string, responses: (() => Response)[]) {
  let index = 0;
  sandbox.server.use(
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
    sandbox.server.use(
      http.get("https://api-eu.customer.io/v1/workspaces", () => HttpResponse.json({ workspaces: [] })),
    );
    const client = await connect({ ...KEY, MARKETING_REGION: "eu" });
    expect(ok(await call(client, "ListWorkspaces"))).toEqual({ workspaces: [] });
    expect(sandbox.seen[0]?.url.origin).toBe("https://api-eu.customer.io");
  });

  it("lets MARKETING_API_URL win over the region", async () => {
    sandbox.server.use(
      http.get("http://localhost:4010/v1/workspaces", () => HttpResponse.json({ workspaces: [{ id: 1 }] })),
    );
    const client = await connect({
      ...KEY,
      MARKETING_REGION: "eu",
      MARKETING_API_URL: "http://localhost:4010",
    });
    expect(ok(await call(client, "ListWorkspaces"))).toEqual({ workspaces: [{ id: 1 }] });
  });

  it("refuses an unknown region naming the allowed ones, sending nothing", async () => {
    const result = await call(await connect({ ...KEY, MARKETING_REGION: "mars" }), "ListWorkspaces");
    expect(text(result)).toBe(
      'invalid_input: MARKETING_REGION is "mars"; allowed: us, eu. Fix the server\'s configuration.',
    );
    expect(sandbox.seen).toHaveLength(0);
  });

  it("names the EU region in a 401", async () => {
    sandbox.server.use(
      http.get("https://api-eu.customer.io/v1/workspaces", () =>
        HttpResponse.json({ meta: { error: "Unauthorized" } }, { status: 401 }),
      ),
    );
    const result = await call(await connect({ ...KEY, MARKETING_REGION: "eu" }), "ListWorkspaces");
    expect(text(result)).toContain("EU region (MARKETING_REGION=eu; the other is us)");
  });

  it("answers unauthenticated with setup advice when the key is missing", async () => {
    const result = await call(await connect({}), "ListWorkspaces");
    expect(text(result)).toContain("unauthenticated: The secret MARKETING_API_KEY is not configured.");
    expect(sandbox.seen).toHaveLength(0);
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
    sandbox.server.use(
      http.get("https://api.customer.io/v1/workspaces", () => HttpResponse.json(errorBody, { status: 422 })),
    );
    const result = await call(await connect(), "ListWorkspaces");
    expect(text(result)).toBe(`invalid_input: GET /v1/workspaces failed with HTTP 422: ${message}.`);
  });

  it("says which tool lists valid ids on a 404", async () => {
    sandbox.server.use(
      http.get("https://api.customer.io/v1/campaigns/:id", () =>
        HttpResponse.json({ meta: { error: "not found" } }, { status: 404 }),
      ),
    );
    const result = await call(await connect(), "GetCampaignMetadata", { campaign_id: 99 });
    expect(text(result)).toBe(
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
    ok(await call(await connect(), "ListWorkspaces"));
    expect(sandbox.seen).toHaveLength(2);
  });

  it("retries a send refused with 429, since it did not run", async () => {
    sequence("post", "https://api.customer.io/v1/send/email", [
      () => new HttpResponse(null, { status: 429, headers: { "retry-after": "0" } }),
      () => HttpResponse.json({ delivery_id: "d1", queued_at: 1 }),
    ]);
    const body = { transactional_message_id: 44, to: "p@example.com", identifiers: { id: "1" } };
    const result = ok(
      await call(await connect(), "SendTransactionalEmail", {
        mode: "execute",
        request_body: JSON.stringify(body),
      }),
    );
    expect(result).toEqual({ delivery_id: "d1", queued_at: 1 });
    expect(sandbox.seen).toHaveLength(2);
  });

  it("does not repeat a read-only search POST after a 500: a body is sent at most once", async () => {
    sequence("post", "https://api.customer.io/v1/customers", [
      () => new HttpResponse(null, { status: 500 }),
      () => HttpResponse.json({ identifiers: [], ids: [], next: "" }),
    ]);
    const args = { mode: "execute", request_body: '{"filter":{"and":[]}}' };
    const result = await call(await connect(), "FilterPeopleInWorkspace", args);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("so it was not repeated");
    expect(sandbox.seen).toHaveLength(1);
  });

  it("tells the model a trigger is limited to one call per 10 seconds", async () => {
    sandbox.server.use(
      http.post(
        "https://api.customer.io/v1/campaigns/:id/triggers",
        () => new HttpResponse(null, { status: 429, headers: { "retry-after": "60" } }),
      ),
    );
    const result = await call(await connect(), "TriggerBroadcastMessage", {
      mode: "execute",
      broadcast_id: 3,
      request_body: "{}",
    });
    expect(text(result)).toMatch(
      /^rate_limited: .*HTTP 429\. Broadcast triggers are limited to 1 request per 10 seconds\. Retry after 60 s\.$/,
    );
    expect(sandbox.seen).toHaveLength(1);
  });
});
