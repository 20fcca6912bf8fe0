import { requestContract, type SandboxHarnessOptions, type SeenResult } from "@toolkits/core/testing";
import { expect } from "vitest";
import { forgetUserDirectories } from "../src/index.js";
import { isIsoTime } from "../src/params.js";
import { type PagerSandbox, sandbox } from "../src/sandbox/index.js";

// The pager toolkit as the test kit serves it: PagerDuty's OpenAPI description with its quirks,
// and the harness options every test file starts from.

/** PagerDuty's OpenAPI description, trimmed to the operations the tools call (see vendor/README.md). */
export const PAGER_API = new URL("../vendor/pagerduty-openapi.json", import.meta.url);

/** What the description leaves out: the EU host, the two credential forms, ISO 8601 dates as date-times. */
export const PAGER_QUIRKS = {
  hosts: ["https://api.eu.pagerduty.com"],
  headers: { authorization: /^(Bearer \S+|Token token=\S+)$/ },
  formats: { "date-time": isIsoTime },
};

export const pagerContract = requestContract(PAGER_API, PAGER_QUIRKS);

/** A fresh default account per test, the user-directory cache cleared, every request checked against the contract. */
export const PAGER: SandboxHarnessOptions<PagerSandbox> = {
  sandbox: () => sandbox(),
  contract: pagerContract,
  beforeEach: forgetUserDirectories,
};

/** Calls a list tool page after page, following next_offset until `more` is false. */
export async function readAllPages(
  call: (name: string, args: Record<string, unknown>) => Promise<SeenResult>,
  tool: string,
  key: string,
  args: Record<string, unknown> = {},
): Promise<{ items: Record<string, unknown>[]; pages: SeenResult[] }> {
  const pages: SeenResult[] = [];
  let offset: number | undefined;
  do {
    const page = await call(tool, offset === undefined ? args : { ...args, offset });
    expect(page.isError, page.text).toBe(false);
    pages.push(page);
    offset = page.data?.more ? (page.data.next_offset as number) : undefined;
  } while (offset !== undefined);
  return { items: pages.flatMap((page) => page.data?.[key] as Record<string, unknown>[]), pages };
}
