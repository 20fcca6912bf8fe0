import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { defineTool, envHost, invokeTool, READ_ONLY_HINTS } from "../src/index.js";

const listThings = defineTool({
  name: "Test.ListThings",
  title: "List things",
  description: "Lists things with their ids and an optional label.",
  input: z.object({ limit: z.number().int().min(1).max(10).default(2) }),
  output: z.object({ things: z.array(z.object({ id: z.string(), label: z.string().optional() })) }),
  hints: READ_ONLY_HINTS,
  auth: {},
  handler: async ({ limit }) => ({ things: Array.from({ length: limit }, (_, i) => ({ id: `T${i}` })) }),
});

describe("invokeTool", () => {
  it("types a known tool's result from its output schema", async () => {
    const outcome = await invokeTool(listThings, { limit: 3 }, envHost({}));
    if (!outcome.ok) throw outcome.error;
    expectTypeOf(outcome.result.things).toEqualTypeOf<{ id: string; label?: string | undefined }[]>();
    expectTypeOf(outcome.result.truncated).toEqualTypeOf<true | undefined>();
    expect(outcome.result.things.map((thing) => thing.id)).toEqual(["T0", "T1", "T2"]);
  });
});
