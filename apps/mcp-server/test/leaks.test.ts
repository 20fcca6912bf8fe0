import { isWatchedSecret } from "@toolkits/core/testing";
import { expect, it } from "vitest";
import { TOOLKITS } from "../src/toolkits.js";

it.each(Object.keys(TOOLKITS))(
  "every test file's leak scan watches the %s sandbox's credentials",
  async (id) => {
    const sandbox = await TOOLKITS[id]?.sandbox();
    const credentials = [...Object.values(sandbox?.secrets ?? {}), ...Object.values(sandbox?.tokens ?? {})];
    expect(credentials.length).toBeGreaterThan(0);
    for (const credential of credentials) expect(isWatchedSecret(credential)).toBe(true);
  },
);
