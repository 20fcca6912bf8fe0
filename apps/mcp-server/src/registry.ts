// The MCP Registry entry (server.json at the repository root), made from the option table so it
// names exactly the settings the server reads. scripts/docs.mjs writes it (`--check`: fails when it
// is stale); scripts/check-registry.mjs validates it against the registry's schema. Built as
// dist/registry.js.
import { CONNECTOR_FORM } from "./connectors/selection.js";
import { type Setting, settingsOf, shownDefault, yes } from "./options/setting.js";
import { SETTINGS, TOOLKIT_VARIABLES } from "./options/table.js";
import { VERSION } from "./server.js";

/** The registry's name for this server: its namespace is the GitHub organisation that publishes it. */
const REGISTRY_NAME = "io.github.agent-toolkits/toolkits-mcp";
/** The npm package the entry installs. */
const PACKAGE_NAME = "@toolkits/mcp-server";
const SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";
const REPOSITORY = "https://github.com/agent-toolkits/agent-toolkits";

/** An input of the entry: an environment variable, a header or a URL variable. */
interface Input {
  name?: string;
  description: string;
  isRequired?: boolean;
  isSecret?: boolean;
  format?: "string" | "boolean";
  default?: string;
  value?: string;
  variables?: Record<string, Input>;
}

/** A tool-selection setting as a variable an installing client may set (switches as booleans). */
function variableOf(setting: Setting<unknown>): Input {
  const shown = shownDefault(setting);
  return {
    name: setting.env,
    description: setting.help,
    ...(setting.parse === yes ? { format: "boolean" } : {}),
    ...(shown !== undefined && setting.parse !== yes ? { default: shown } : {}),
  };
}

/** What `--sandbox` is for (a demo), and what only a deployment sets, stays out of an install. */
const INSTALLED = (setting: Setting<unknown>) => setting.group === "Tools" && setting.env !== "MCP_SANDBOX";

const AUTHORIZATION: Input = {
  name: "Authorization",
  description:
    "Bearer and a static token of the deployment (MCP_HTTP_BEARER_TOKENS); leave it out where the deployment has an authorization server, whose sign-in the client does itself",
  isSecret: true,
  value: "Bearer {token}",
  variables: { token: { description: "your access token for this deployment", isSecret: true } },
};
const HOST: Input = { description: "the deployment's host name (its MCP_PUBLIC_URL)", isRequired: true };

/** The registry entry: the npm package over stdio, and a team deployment's URLs over Streamable HTTP. */
export function registryEntry(): Record<string, unknown> {
  const environmentVariables = [
    ...TOOLKIT_VARIABLES.map(({ env, help, secret }) => ({
      name: env,
      description: help,
      isSecret: secret === true,
    })),
    ...settingsOf(SETTINGS).filter(INSTALLED).map(variableOf),
  ];
  return {
    $schema: SCHEMA,
    name: REGISTRY_NAME,
    title: "Agent toolkits",
    description: "PagerDuty incidents and on-call, Google Sheets and Customer.io messaging, as MCP tools",
    version: VERSION,
    repository: { url: REPOSITORY, source: "github", subfolder: "apps/mcp-server" },
    websiteUrl: `${REPOSITORY}/tree/main/apps/mcp-server#readme`,
    packages: [
      {
        registryType: "npm",
        registryBaseUrl: "https://registry.npmjs.org",
        identifier: PACKAGE_NAME,
        version: VERSION,
        runtimeHint: "npx",
        transport: { type: "stdio" },
        environmentVariables,
      },
    ],
    remotes: [
      {
        type: "streamable-http",
        url: "https://{host}/mcp",
        headers: [AUTHORIZATION],
        variables: { host: HOST },
      },
      {
        type: "streamable-http",
        url: "https://{host}/mcp/{selection}",
        headers: [AUTHORIZATION],
        variables: {
          host: HOST,
          selection: {
            description: `the tools to serve, as a connector URL's path after /mcp/ (${CONNECTOR_FORM}): pager, pager@eu+sheets@work/readonly, marketing:segments,broadcasts, search; to reach one of several accounts at a provider, name its label after the toolkit (pager@eu)`,
            isRequired: true,
            default: "search",
          },
        },
      },
    ],
  };
}
