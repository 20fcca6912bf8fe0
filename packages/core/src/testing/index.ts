export * from "./arguments.js";
export * from "./descriptions.js";
export * from "./faults.js";
export * from "./leaks.js";
export * from "./mcp.js";
