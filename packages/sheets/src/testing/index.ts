import type { Sandbox } from "@toolkits/core";

/** Fake upstream for tests and `toolkits-mcp --sandbox`. */
export function sandbox(): Sandbox {
  return { handlers: [] };
}
