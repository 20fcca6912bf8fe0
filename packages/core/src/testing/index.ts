export * from "./arguments.js";
export * from "./contract.js";
export * from "./descriptions.js";
export * from "./faults.js";
export * from "./fuzz.js";
export * from "./harness.js";
export * from "./leaks.js";
export * from "./mcp.js";
