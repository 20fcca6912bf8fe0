import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createHttpClient,
  defineTool,
  invokeTool,
  READ_ONLY_HINTS,
  sandboxHost,
  type Toolkit,
} from "../src/index.js";

const getThing = defineTool({
  name: "Test.GetThing",
  title: "Get a thing",
  description: "Gets one thing by id, with its name.",
  input: z.object({ id: z.string() }),
  output: z.object({ id: z.string(), name: z.string(), region: z.string() }),
  hints: READ_ONLY_HINTS,
  auth: { secret: "THING_KEY" },
  async handler({ id }, context) {
    const key = (await context.credential()).value.reveal();
    const client = createHttpClient({
      baseUrl: "https://things.example",
      authorization: () => `Key ${key}`,
      fetch: context.fetch,
    });
    const { data } = await client.request<{ id: string; name: string }>({
      method: "GET",
      path: "/things/{id}",
      pathParams: { id },
    });
    return { id: data?.id ?? id, name: data?.name ?? "", region: context.setting("THING_REGION") ?? "" };
  },
});

const thingsToolkit: Toolkit = {
  id: "things",
  title: "Things",
  tools: [getThing],
  setup: "Set THING_KEY.",
  sandbox: async () => ({
    handlers: [
      http.get("https://things.example/things/:id", ({ params, request }) =>
        request.headers.get("authorization") === "Key fake-thing-key"
          ? HttpResponse.json({ id: params.id, name: `Thing ${params.id}` })
          : HttpResponse.json({ error: "bad key" }, { status: 401 }),
      ),
    ],
    secrets: { THING_KEY: "fake-thing-key" },
    settings: { THING_REGION: "sandbox" },
  }),
};

describe("sandboxHost", () => {
  it("runs a toolkit's tools on its fakes, with its fake credentials and settings, without the network", async () => {
    const host = await sandboxHost([thingsToolkit]);
    const outcome = await invokeTool(getThing, { id: "42" }, host);
    expect(outcome).toEqual({ ok: true, result: { id: "42", name: "Thing 42", region: "sandbox" } });
  });
});
