import { readFileSync } from "node:fs";
import { toMcpTool } from "@toolkits/core/mcp";
import { describe, expect, it } from "vitest";
import { TOOLKITS } from "../src/toolkits.js";

describe("the tools/list entries prepared at build time", () => {
  it("are exactly what the tool definitions give, in catalogue order", () => {
    const prebuilt = JSON.parse(readFileSync(new URL("../dist/tools.json", import.meta.url), "utf8"));
    expect(prebuilt).toEqual(Object.values(TOOLKITS).flatMap((kit) => kit.tools.map(toMcpTool)));
    expect(prebuilt).toHaveLength(138);
  });
});
