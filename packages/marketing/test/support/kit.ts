import type { Sandbox } from "@toolkits/core";
import { requestContract, type SandboxHarnessOptions } from "@toolkits/core/testing";

// The marketing toolkit as the test kit serves it: Customer.io's OpenAPI description (the same copy
// the generator reads) with the upstream's quirks, and the harness options test files start from.

/** The vendored, trimmed OpenAPI description (see data/README.md). */
export const MARKETING_API = new URL("../../data/customerio-app-openapi.trimmed.json", import.meta.url);

/** What the description leaves out or states loosely. */
export const MARKETING_QUIRKS = {
  hosts: ["https://api-eu.customer.io"],
  // The description names a bearer scheme without requiring it; every call needs the key, as JSON.
  headers: { authorization: /^Bearer \S+$/, accept: /application\/json/ },
  // Formats it uses in its own sense, or for example values only. GetPeopleByEmail passes any text
  // on as `email` (a search), so the email format is not held against it either.
  formats: { "unix timestamp": true, url: true, base64: true, email: true } as const,
  // Its oneOf branches overlap (see src/body.ts).
  oneOfAsAnyOf: true,
  // Activity types are listed as templates: `_o:<object_type_id>:create`.
  enumPlaceholders: true,
};

export const marketingContract = requestContract(MARKETING_API, MARKETING_QUIRKS);

/** A fresh account per test, every request checked against the contract. */
export const MARKETING: SandboxHarnessOptions<Sandbox> = { contract: marketingContract };
