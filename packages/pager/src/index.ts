import type { Toolkit } from "@toolkits/core";

/** The pager toolkit as a host composes it. */
export const pagerToolkit: Toolkit = {
  id: "pager",
  title: "Pager",
  tools: [],
  setup: "",
  sandbox: async () => (await import("./testing/index.js")).sandbox(),
};
