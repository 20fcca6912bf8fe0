import { ACCESS } from "./access.js";
import { SERVING } from "./serving.js";
import type { Environment, ToolkitVariable } from "./setting.js";

/**
 * A copy of the process environment, taken once at start. This is the one place the server reads
 * `process.env`: every setting is read from this copy, as the table below says.
 */
export function readEnvironment(): Environment {
  return Object.freeze({ ...process.env });
}

/**
 * Every server setting: its flag, environment variable, parser, default, help and group, nested as
 * `ServerOptions` is (the rows are in serving.ts and access.ts). The commander program,
 * `ServerOptions`, `--help` and the README's tables (scripts/docs.mjs) are all generated from it.
 */
export const SETTINGS = { ...SERVING, ...ACCESS };

/** The toolkits' own variables: passed to them in `toolkitEnv`, listed for `--help` and the README. */
export const TOOLKIT_VARIABLES: readonly ToolkitVariable[] = [
  {
    env: "PAGER_ACCESS_TOKEN",
    secret: true,
    help: "PagerDuty OAuth access token (or sign in: toolkits-mcp login pager)",
  },
  {
    env: "PAGER_API_TOKEN",
    secret: true,
    help: "a classic PagerDuty API token, used when there is no OAuth token",
  },
  { env: "PAGER_REGION", help: "us (default) or eu" },
  {
    env: "PAGER_API_URL",
    help: "an explicit API URL (default https://api.pagerduty.com); wins over the region",
  },
  {
    env: "GOOGLE_ACCESS_TOKEN",
    secret: true,
    help: "Google OAuth access token with the scopes the sheets tools need (or sign in: toolkits-mcp login google)",
  },
  {
    env: "GOOGLE_API_ROOT_URL",
    help: "one root URL for every Google API the sheets toolkit calls (tests, proxies)",
  },
  { env: "GOOGLE_PICKER_API_KEY", help: "the file picker's browser API key (with GOOGLE_OAUTH_CLIENT_ID)" },
  {
    env: "GOOGLE_PICKER_APP_ID",
    help: "the picker's Cloud project number, when the client ID does not start with it",
  },
  { env: "MARKETING_API_KEY", secret: true, help: "Customer.io App API key (never a tool parameter)" },
  { env: "MARKETING_REGION", help: "us (default) or eu" },
  { env: "MARKETING_API_URL", help: "an explicit API URL; wins over the region" },
];
