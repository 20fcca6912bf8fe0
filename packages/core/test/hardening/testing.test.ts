import { spawn } from "node:child_process";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  defineTool,
  envHost,
  invokeTool,
  parseArguments,
  READ_ONLY_HINTS,
  ToolError,
} from "../../src/index.js";
import { toMcpTool } from "../../src/mcp/index.js";
import {
  argumentsFor,
  installLeakScan,
  invalidArgumentsFor,
  type JsonSchema,
  LeakScan,
  namesParameter,
} from "../../src/testing/index.js";

// A tool with every kind of parameter the toolkits use.
const everything = defineTool({
  name: "Test.Everything",
  title: "Everything",
  description: "Takes one parameter of each kind.",
  input: z.object({
    id: z.string().min(1).describe("An id"),
    query: z.string().min(1).max(20).optional(),
    status: z.enum(["open", "closed"]).optional(),
    limit: z.number().int().min(1).max(50).default(10),
    offset: z.number().int().min(0).optional(),
    count: z.number().int().optional(),
    flag: z.boolean().default(false),
    ids: z.array(z.string().min(1)).optional(),
    column: z.union([z.string(), z.number().int().min(1).max(100)]).default("A"),
  }),
  output: z.object({ echoed: z.string() }),
  hints: READ_ONLY_HINTS,
  auth: {},
  async handler({ id }) {
    return { echoed: id };
  },
});
const schema = toMcpTool(everything).inputSchema as JsonSchema;

describe("argumentsFor", () => {
  it("generates arguments the tool's own validation accepts", () => {
    fc.assert(
      fc.property(argumentsFor(schema), (args) => {
        parseArguments(everything, args);
      }),
      { numRuns: 500 },
    );
  });

  it("mixes in the samples it is given", () => {
    const seen = fc.sample(argumentsFor(schema, { samples: { id: ["known-id"] } }), 200);
    expect(seen.some((args) => args.id === "known-id")).toBe(true);
  });
});

describe("invalidArgumentsFor", () => {
  it("generates arguments the tool refuses as invalid_input naming the broken parameter", () => {
    fc.assert(
      fc.property(invalidArgumentsFor(schema), ({ args, parameter }) => {
        const failure = (() => {
          try {
            parseArguments(everything, JSON.parse(JSON.stringify(args)));
          } catch (error) {
            return error;
          }
        })();
        expect(failure).toBeInstanceOf(ToolError);
        expect((failure as ToolError).kind).toBe("invalid_input");
        expect(
          namesParameter((failure as ToolError).message, parameter),
          (failure as ToolError).message,
        ).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("breaks every rule kind for a schema that has them all", () => {
    const rules = new Set(fc.sample(invalidArgumentsFor(schema), 500).map((broken) => broken.rule));
    expect([...rules].sort()).toEqual([
      "missing required",
      "out of bounds",
      "unknown enum value",
      "unknown parameter",
      "wrong type",
    ]);
  });
});

describe("namesParameter", () => {
  it("finds a parameter in core's two message forms, and not as a mere substring", () => {
    expect(namesParameter("Invalid arguments for T: limit: Too big.", "limit")).toBe(true);
    expect(namesParameter("Invalid arguments for T: a: x; ids.2: Too small.", "ids")).toBe(true);
    expect(namesParameter("T has no parameter __proto__. Allowed: a.", "__proto__")).toBe(true);
    expect(namesParameter("Invalid arguments for T: offset: Too big.", "set")).toBe(false);
  });
});

describe("LeakScan", () => {
  const WATCHED = "TEMPCHECK-value-4Rt9";
  let restore: (() => void) | undefined;
  afterEach(() => restore?.());

  it("finds watched values and values core wrapped as secrets, showing neither", async () => {
    const scan = new LeakScan([WATCHED]);
    scan.check("here", `a ${WATCHED} b`);
    const wrapped = "TEMPCHECK-wrapped-8Pz1";
    const failing = defineTool({
      ...everything,
      name: "Test.Echo",
      auth: { secret: "ECHO_KEY" },
      async handler(_input, context) {
        return { echoed: (await context.credential()).value.reveal() };
      },
    });
    restore = installLeakScan(scan);
    await invokeTool(failing, { id: "x" }, envHost({ ECHO_KEY: wrapped }));
    const leaks = scan.take();
    expect(leaks.map((leak) => leak.where)).toEqual(["here", "tool result Test.Echo"]);
    expect(JSON.stringify(leaks)).not.toContain(WATCHED);
    expect(JSON.stringify(leaks)).not.toContain(wrapped);
    expect(scan.take()).toEqual([]);
  });

  it("taps stderr, console, the silent logger and a child process's output", async () => {
    const scan = new LeakScan([WATCHED]);
    restore = installLeakScan(scan);
    process.stderr.write(`stderr ${WATCHED}\n`);
    console.warn("console", WATCHED);
    envHost({}).logger.error("logged", { token: WATCHED });
    const child = spawn(process.execPath, ["-e", "console.log(process.env.CHILD_TOKEN)"], {
      env: { CHILD_TOKEN: "TEMPCHECK-child-2Vb7" },
    });
    await new Promise((resolve) => child.on("close", resolve));
    restore();
    expect(scan.take().map((leak) => leak.where.replace(/\d+/, "N"))).toEqual([
      "stderr",
      "console.warn",
      "log error",
      "child N stdout",
    ]);
  });
});
