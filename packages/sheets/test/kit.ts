import type { Sandbox } from "@toolkits/core";
import { requestContract, type SandboxHarnessOptions } from "@toolkits/core/testing";

// The sheets toolkit as the test kit serves it: Google's discovery documents in their OpenAPI form
// (scripts/vendor-discovery.mjs), which state every rule the requests must follow.

/** The Sheets, Drive and OAuth2 methods the tools call, as OpenAPI. */
export const GOOGLE_API = new URL("./vendor/google-openapi.json", import.meta.url);

export const googleContract = requestContract(GOOGLE_API);

/** A fresh drive per test, every request checked against the contract. */
export const SHEETS: SandboxHarnessOptions<Sandbox> = { contract: googleContract };
