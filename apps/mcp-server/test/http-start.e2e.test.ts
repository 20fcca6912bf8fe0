import { describe, expect, it } from "vitest";
import { startHttpServer } from "./spawn.js";

const START_LINE = "serving Streamable HTTP";

describe("the Streamable HTTP start line", () => {
  it("is logged at info with the URL, and not at the default level (warn)", async () => {
    const quiet = await startHttpServer(["--sandbox", "--toolkits", "pager"]);
    const told = await startHttpServer(["--sandbox", "--toolkits", "pager", "--log-level", "info"]);
    await expect.poll(() => told.stderr()).toContain(START_LINE);
    await Promise.all([quiet.stop(), told.stop()]);
    expect(quiet.stderr()).not.toContain(START_LINE);
    const line = told
      .stderr()
      .split("\n")
      .find((text) => text.includes(START_LINE));
    // pino's level 30 is info.
    expect(JSON.parse(line ?? "{}")).toMatchObject({ level: 30, msg: START_LINE, url: told.url });
  });
});
