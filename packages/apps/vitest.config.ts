export { default } from "../../vitest.shared.js";
