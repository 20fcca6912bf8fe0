/** The generator's inputs, as JSON: the vendored files in data/ and scripts/overrides.json. */
export interface GeneratorInputs {
  /** data/marketing-endpoints.json: one entry per tool. */
  map: readonly Record<string, unknown>[];
  /** data/customerio-app-openapi.trimmed.json. */
  openapi: Record<string, unknown>;
  /** data/catalog.marketing.json: the spec's parameters per tool. */
  catalog: Record<string, unknown>;
  /** scripts/overrides.json: descriptions, value sets, toolsets, hint groups and limits. */
  overrides: Record<string, unknown>;
}

/** Reads the inputs from a package directory (a `file:` URL ending in `/`; default this package). */
export function readInputs(root?: URL): GeneratorInputs;

/**
 * The generated modules' text by package-relative path (`src/endpoints.generated.ts`, …).
 * @throws Error when an input is inconsistent or a generated line exceeds 200 characters.
 */
export function generate(inputs: GeneratorInputs): Record<string, string>;
