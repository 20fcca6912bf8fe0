export * from "./arguments.js";
export * from "./leaks.js";
