import type { Toolkit } from "@toolkits/core";

/** The marketing toolkit as a host composes it. */
export const marketingToolkit: Toolkit = {
  id: "marketing",
  title: "Marketing",
  tools: [],
  setup: "",
  sandbox: async () => (await import("./testing/index.js")).sandbox(),
};
