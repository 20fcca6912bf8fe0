import type { Sandbox } from "@toolkits/core";
import type { HttpHandler } from "msw";
import { type AccountOptions, API_HOST, buildAccount, type PagerAccount } from "./account.js";
import { pagerHandlers } from "./handlers.js";

export type { AccountOptions, Membership, PagerAccount, Rotation } from "./account.js";

/** The credential the sandbox accepts, as an OAuth token or a classic API token. */
export const SANDBOX_TOKEN = "sandbox-pager-token";

export interface SandboxOptions extends AccountOptions {
  /** Simulated latency of every request, in milliseconds (default 0). */
  latencyMs?: number;
  /** Where the fake listens (default PagerDuty's US host, `https://api.pagerduty.com`). */
  baseUrl?: string;
}

/** The sandbox plus its account, so tests can name real ids. */
export interface PagerSandbox extends Sandbox {
  handlers: HttpHandler[];
  tokens: { pager: string };
  account: PagerAccount;
}

/**
 * A fake PagerDuty for tests, benchmarks and `toolkits-mcp --sandbox`: msw handlers over a fresh,
 * seeded in-memory account (40 users on 5 teams, schedules with shifts, escalation policies,
 * 10 services, 60 incidents and their log entries) on every call. It answers 401 to any credential
 * but `SANDBOX_TOKEN`. `sandbox({ users: 10_000, latencyMs: 50 })` builds a large, slow directory.
 */
export function sandbox(options: SandboxOptions = {}): PagerSandbox {
  const account = buildAccount(options);
  const handlers = pagerHandlers(account, {
    baseUrl: (options.baseUrl ?? API_HOST).replace(/\/+$/, ""),
    token: SANDBOX_TOKEN,
    latencyMs: options.latencyMs ?? 0,
  });
  return { handlers, tokens: { pager: SANDBOX_TOKEN }, account };
}
