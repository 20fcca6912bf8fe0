import type { Toolkit } from "@toolkits/core";

/** The sheets toolkit as a host composes it. */
export const sheetsToolkit: Toolkit = {
  id: "sheets",
  title: "Sheets",
  tools: [],
  setup: "",
  sandbox: async () => (await import("./testing/index.js")).sandbox(),
};
