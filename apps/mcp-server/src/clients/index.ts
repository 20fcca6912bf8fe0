// How each MCP client adds this server: the one table the front page (src/front/) and the README's
// client section (scripts/docs.mjs, through ./markdown.ts) are both made from.

/**
 * How a client proves who it is: it signs in itself (`oauth`: the server has an authorization
 * server), sends a bearer token in a header (`token`: static tokens only), or nothing (`none`:
 * loopback without authentication).
 */
export type ClientAuth = "oauth" | "token" | "none";

/** What a snippet is made for: one MCP URL, under one name. */
export interface Target {
  /** The MCP URL: `<public URL>/mcp`, or a connector URL. */
  url: string;
  /** The name the client lists the server under (Claude Code puts it in every tool's name). */
  name: string;
  auth: ClientAuth;
}

/** Something to copy: a command, a config file, some code. */
export interface Snippet {
  /** What it is and where it goes: `Command`, `.vscode/mcp.json`. */
  label: string;
  language: "text" | "sh" | "json" | "python";
  text: string;
}

/** A link that opens the client with the server ready to add. */
export interface DeepLink {
  label: string;
  href: string;
}

/** The limits a client puts on the tools it is given. */
export interface ClientLimits {
  /** Most tools one request may carry (OpenAI's API takes 128). */
  maxTools?: number;
  /**
   * The client names each tool `<prefix><tool>` (Claude Code: `mcp__<server>__<tool>`) and the
   * model API refuses names over `maxName` characters.
   */
  toolName?: { prefix(server: string): string; maxName: number };
}

/** One client's way of adding the server. */
export interface ClientGuide {
  id: string;
  title: string;
  /** Whether it takes a URL and nothing else (no header): only OAuth or no authentication works. */
  urlOnly: boolean;
  steps(target: Target): string[];
  snippets(target: Target): Snippet[];
  deepLink?(target: Target): DeepLink;
  limits: ClientLimits;
}

/** The variable the snippets read a static bearer token from, so no token is written into a config. */
export const TOKEN_VARIABLE = "TOOLKITS_MCP_TOKEN";
/** The default server name of the snippets: short, so Claude Code's tool names stay within 64. */
export const SERVER_NAME = "toolkits";

const OPENAI_TOOL_CAP = 128;
/** The VS Code input prompting for the token, which its config refers to as `${input:…}`. */
const VSCODE_INPUT = "toolkits-token";
const json = (value: unknown) => JSON.stringify(value, null, 2);
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
/** The headers a target needs, with the token read as `token` says; none unless static tokens. */
const headersOf = (target: Target, token: string) => (target.auth === "token" ? bearer(token) : undefined);
const shellHeader = (target: Target) =>
  target.auth === "token" ? ` --header "Authorization: Bearer $${TOKEN_VARIABLE}"` : "";
const tokenStep = (target: Target) =>
  target.auth === "token" ? [`Set ${TOKEN_VARIABLE} to your access token for this server first.`] : [];
/**
 * What a client that takes only a URL, and connects from its maker's servers (`who`), needs of
 * the target: an address those servers reach, and OAuth or no authentication.
 */
function urlOnlySteps(target: Target, who: string): string[] {
  const host = new URL(target.url).hostname;
  if (["127.0.0.1", "localhost", "[::1]"].includes(host))
    return [
      `It connects from ${who}'s servers, which cannot reach this machine's loopback address: it needs the server deployed at a public https URL.`,
    ];
  if (target.auth === "token")
    return [
      "It sends no header, so it cannot use this server's static tokens: it needs the server to offer OAuth.",
    ];
  return target.auth === "oauth" ? ["It asks you to sign in to this server when it first connects."] : [];
}

/** The VS Code server entry, `.vscode/mcp.json`'s `servers.<name>` (and the install link's config). */
function vscodeEntry(target: Target) {
  const headers = headersOf(target, `\${input:${VSCODE_INPUT}}`);
  const inputs = headers && [
    {
      id: VSCODE_INPUT,
      type: "promptString",
      description: "Access token for toolkits-mcp",
      password: true,
    },
  ];
  return { server: { type: "http", url: target.url, ...(headers && { headers }) }, inputs };
}

/** The Cursor server entry, `mcp.json`'s `mcpServers.<name>` (and the install link's config). */
function cursorEntry(target: Target) {
  const headers = headersOf(target, `\${env:${TOKEN_VARIABLE}}`);
  return { url: target.url, ...(headers && { headers }) };
}

/** A command-line client that adds a server with `<program> mcp add --transport http`. */
function cliClient(id: string, title: string, program: string, limits: ClientLimits): ClientGuide {
  return {
    id,
    title,
    urlOnly: false,
    steps: (target) => [
      ...tokenStep(target),
      `Run the command, then check the server with /mcp in ${title}.`,
    ],
    snippets: (target) => [
      {
        label: "Command",
        language: "sh",
        text: `${program} mcp add --transport http${shellHeader(target)} ${target.name} ${target.url}`,
      },
    ],
    limits,
  };
}

/** The clients the front page and the README guide, in the order shown. */
export const CLIENTS: readonly ClientGuide[] = [
  {
    id: "claude",
    title: "claude.ai and Claude Desktop",
    urlOnly: true,
    steps: (target) => [
      "In Claude, open Settings → Connectors → Add custom connector.",
      `Name it ${target.name} and paste the URL below. Claude Desktop uses the connectors added on claude.ai.`,
      ...urlOnlySteps(target, "Anthropic"),
    ],
    snippets: (target) => [{ label: "Connector URL", language: "text", text: target.url }],
    limits: {},
  },
  {
    id: "chatgpt",
    title: "ChatGPT",
    urlOnly: true,
    steps: (target) => [
      "Turn on developer mode: Settings → Apps & Connectors → Advanced settings → Developer mode.",
      `Then Settings → Apps & Connectors → Create: name it ${target.name}, paste the URL below and choose OAuth.`,
      ...urlOnlySteps(target, "OpenAI"),
    ],
    snippets: (target) => [{ label: "Connector URL", language: "text", text: target.url }],
    limits: { maxTools: OPENAI_TOOL_CAP },
  },
  {
    id: "vscode",
    title: "VS Code",
    urlOnly: false,
    steps: () => [
      "Open the install link, or add the snippet to .vscode/mcp.json in your workspace.",
      "Then start the server from the MCP view or the file's Start button.",
    ],
    snippets: (target) => {
      const { server, inputs } = vscodeEntry(target);
      return [
        {
          label: ".vscode/mcp.json",
          language: "json",
          text: json({ ...(inputs && { inputs }), servers: { [target.name]: server } }),
        },
      ];
    },
    deepLink: (target) => {
      const { server, inputs } = vscodeEntry(target);
      const config = { name: target.name, ...server, ...(inputs && { inputs }) };
      return {
        label: "Install in VS Code",
        href: `vscode:mcp/install?${encodeURIComponent(JSON.stringify(config))}`,
      };
    },
    limits: { maxTools: OPENAI_TOOL_CAP },
  },
  {
    id: "cursor",
    title: "Cursor",
    urlOnly: false,
    steps: (target) => [
      ...tokenStep(target),
      "Open the install link, or add the snippet to ~/.cursor/mcp.json (or .cursor/mcp.json in a project).",
    ],
    snippets: (target) => [
      {
        label: "~/.cursor/mcp.json",
        language: "json",
        text: json({ mcpServers: { [target.name]: cursorEntry(target) } }),
      },
    ],
    deepLink: (target) => {
      const config = Buffer.from(JSON.stringify(cursorEntry(target))).toString("base64");
      const query = new URLSearchParams({ name: target.name, config });
      return { label: "Install in Cursor", href: `cursor://anysphere.cursor-deeplink/mcp/install?${query}` };
    },
    limits: {},
  },
  cliClient("claude-code", "Claude Code", "claude", {
    toolName: { prefix: (server) => `mcp__${server}__`, maxName: 64 },
  }),
  cliClient("gemini", "Gemini CLI", "gemini", {}),
  {
    id: "openai-agents",
    title: "OpenAI Agents SDK",
    urlOnly: false,
    steps: (target) => [...tokenStep(target), "Give the server to an agent (Python, openai-agents)."],
    snippets: (target) => [{ label: "Python", language: "python", text: agentsSnippet(target) }],
    limits: { maxTools: OPENAI_TOOL_CAP },
  },
];

function agentsSnippet(target: Target): string {
  const headers =
    target.auth === "token"
      ? `, "headers": {"Authorization": f"Bearer {os.environ['${TOKEN_VARIABLE}']}"}`
      : "";
  return [
    "import asyncio",
    ...(headers ? ["import os"] : []),
    "",
    "from agents import Agent, Runner",
    "from agents.mcp import MCPServerStreamableHttp",
    "",
    "async def main() -> None:",
    "    async with MCPServerStreamableHttp(",
    `        name="${target.name}",`,
    `        params={"url": "${target.url}"${headers}},`,
    "    ) as server:",
    '        agent = Agent(name="Assistant", mcp_servers=[server])',
    '        print((await Runner.run(agent, "Who is on call?")).final_output)',
    "",
    "asyncio.run(main())",
  ].join("\n");
}
