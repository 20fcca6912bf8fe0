// The README's client section, made from the same plans as the front page (scripts/docs.mjs writes
// it between its markers; `--check` fails when it is stale). Built as dist/clients/markdown.js.
import { envHost } from "@toolkits/core";
import { APPS_COUNT_NOTE, offeredUrls, toolCount } from "../connectors/offer.js";
import { valuesOf } from "../options/setting.js";
import { SETTINGS } from "../options/table.js";
import { servedRegistries } from "../served.js";
import { TOOLKITS } from "../toolkits.js";
import { type ClientPlan, clientPlans } from "./fit.js";

/** The deployment the README's examples are written for: every toolkit, static tokens. */
export const EXAMPLE_BASE = "https://mcp.example.com";

/**
 * The README's client section: the connector URLs of a server serving everything with the default
 * settings (each count from the registries it would serve, over a host without credentials that
 * nothing here calls), then each client.
 */
export function clientsMarkdown(): string {
  const toolkits = Object.values(TOOLKITS);
  const tools = toolkits.flatMap((kit) => kit.tools);
  const defaults = valuesOf(SETTINGS, (setting) => setting.default);
  const urls = offeredUrls(toolkits, tools, servedRegistries({ toolkits, tools }, defaults, envHost({})));
  const toolNames = tools.map((tool) => tool.name.replace(".", "_"));
  const plans = clientPlans({ base: EXAMPLE_BASE, auth: "token", urls, toolNames });
  const table = [
    "| URL | Serves | Tools |",
    "|---|---|---|",
    ...urls.map((url) => `| \`${url.path}\` | ${url.what} | ${toolCount(url)} |`),
  ];
  const note = urls.some((url) => url.withApps !== undefined) ? [APPS_COUNT_NOTE] : [];
  return [table.join("\n"), ...note, ACCOUNTS_NOTE, ...plans.map(clientSection)].join("\n\n");
}

/** How a client reaches one of several accounts at a provider: a connector URL per account. */
const ACCOUNTS_NOTE =
  "To reach one of several accounts at a provider, name its label after the toolkit: `/mcp/pager@eu` acts as the PagerDuty account labelled `eu` (`/mcp/<toolkit>@<account>`, combinable: `/mcp/pager@eu+sheets@work/readonly`). Add one connector per account, each under its own server name; the front page offers a signed-in person one per account, with a name that fits Claude Code's 64 characters.";

function clientSection(plan: ClientPlan): string {
  const parts = [
    `#### ${plan.guide.title}`,
    plan.steps.map((step, index) => `${index + 1}. ${step}`).join("\n"),
    ...plan.snippets.map(
      (snippet) => `${snippet.label}:\n\n\`\`\`${snippet.language}\n${snippet.text}\n\`\`\``,
    ),
  ];
  if (plan.deepLink)
    parts.push(`${plan.deepLink.label} (a link for the front page): \`${plan.deepLink.href}\``);
  parts.push(...plan.fit.advice);
  return parts.join("\n\n");
}
