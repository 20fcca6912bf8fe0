import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { generate, readInputs } from "../scripts/generate.mjs";
import { parseBody } from "../src/body.js";
import { ENDPOINTS } from "../src/index.js";
import { EXAMPLES } from "../src/sandbox/index.js";

const PACKAGE = new URL("../", import.meta.url);
// Throws, failing this file, when a generated line would exceed 200 characters.
const generated = generate(readInputs());

describe("generated modules", () => {
  it.each(Object.keys(generated))("%s is what the generator makes of data/", (path) => {
    const onDisk = readFileSync(new URL(path, PACKAGE), "utf8");
    // On failure: run `pnpm --filter @toolkits/marketing generate` and commit the result.
    expect(onDisk === generated[path], `${path} is stale`).toBe(true);
  });

  it("gives every two-mode tool a request example its own validation accepts", async () => {
    for (const spec of ENDPOINTS.filter((s) => s.mode)) {
      // A rejection names the violations; fix it with requestExample in scripts/overrides.json.
      await expect(parseBody(spec.name, JSON.stringify(EXAMPLES.requests[spec.name]))).resolves.toBeDefined();
    }
  });
});
