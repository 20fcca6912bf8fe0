import { parseArgs } from "node:util";
import { type LogLevel, TOOL_NAME_FORMS, type ToolNameForm } from "@toolkits/core";

/** Everything the server can be told, from flags or their `MCP_*` environment equivalents. */
export interface ServerOptions {
  transport: "stdio" | "http";
  /** Interface to bind for HTTP; loopback by default. */
  host: string;
  port: number;
  /** Toolkit ids to load: `pager`, `sheets`, `marketing`. */
  toolkits: string[];
  /** Tool names or globs (`Pager.*`); empty means every tool of the loaded toolkits. */
  tools: string[];
  excludeTools: string[];
  /** Toolsets (areas) to load, e.g. `segments`; empty means all. */
  toolsets: string[];
  /** Register only tools whose readOnly hint is true. */
  readOnly: boolean;
  /** How tool names are served: `underscore` (`Pager_WhoAmI`, default) or `dotted` (`Pager.WhoAmI`). */
  toolNames: ToolNameForm;
  /** `full` lists every tool; `search` lists `search_tools` and `call_tool` only. */
  catalog: "full" | "search";
  /** Answer from each toolkit's built-in fake upstream; no credentials needed. */
  sandbox: boolean;
  /** Cap on one tool result's JSON size, in bytes. */
  maxResultBytes: number;
  logLevel: LogLevel;
  /** Extra host names accepted in the HTTP `Host` header (loopback names always are). */
  allowedHosts: string[];
  /** Origins accepted in the HTTP `Origin` header. */
  allowedOrigins: string[];
  /** Largest HTTP request body, in bytes. */
  maxBodyBytes: number;
  /** Longest an HTTP request may run, in milliseconds. */
  requestTimeoutMs: number;
  /** Externally visible base URL of the HTTP server, when behind a proxy. */
  publicUrl?: string;
}

export const ALL_TOOLKITS = ["pager", "sheets", "marketing"] as const;

const FLAGS = {
  transport: { type: "string", env: "MCP_TRANSPORT", help: "stdio (default) or http" },
  host: { type: "string", env: "MCP_HOST", help: "HTTP interface to bind (default 127.0.0.1)" },
  port: { type: "string", env: "MCP_PORT", help: "HTTP port (default 3000)" },
  toolkits: {
    type: "string",
    env: "MCP_TOOLKITS",
    help: `comma-separated toolkits (default ${ALL_TOOLKITS.join(",")})`,
  },
  tools: { type: "string", env: "MCP_TOOLS", help: "comma-separated tool names or globs, e.g. 'Pager.*'" },
  "exclude-tools": {
    type: "string",
    env: "MCP_EXCLUDE_TOOLS",
    help: "tool names or globs to leave out (wins over --tools)",
  },
  toolsets: { type: "string", env: "MCP_TOOLSETS", help: "comma-separated areas, e.g. segments,broadcasts" },
  "read-only": { type: "boolean", env: "MCP_READ_ONLY", help: "register only read-only tools" },
  "tool-names": {
    type: "string",
    env: "MCP_TOOL_NAMES",
    help: "underscore (default: Pager_WhoAmI, accepted by every client) or dotted (Pager.WhoAmI)",
  },
  catalog: {
    type: "string",
    env: "MCP_CATALOG",
    help: "full (default: list every tool) or search (list search_tools and call_tool only)",
  },
  sandbox: {
    type: "boolean",
    env: "MCP_SANDBOX",
    help: "answer from built-in fake upstreams (no credentials)",
  },
  "max-result-bytes": {
    type: "string",
    env: "MCP_MAX_RESULT_BYTES",
    help: "cap on one result's JSON size (default 100000)",
  },
  "log-level": { type: "string", env: "MCP_LOG_LEVEL", help: "debug, info, warn (default) or error" },
  "allowed-hosts": { type: "string", env: "MCP_ALLOWED_HOSTS", help: "extra Host names accepted over HTTP" },
  "allowed-origins": {
    type: "string",
    env: "MCP_ALLOWED_ORIGINS",
    help: "Origins accepted over HTTP (default none)",
  },
  "max-body-bytes": {
    type: "string",
    env: "MCP_MAX_BODY_BYTES",
    help: "largest HTTP request body (default 1000000)",
  },
  "public-url": {
    type: "string",
    env: "MCP_PUBLIC_URL",
    help: "externally visible base URL (behind a proxy)",
  },
  "request-timeout-ms": {
    type: "string",
    env: "MCP_REQUEST_TIMEOUT_MS",
    help: "HTTP request time limit (default 120000)",
  },
  help: { type: "boolean", short: "h", help: "print this help" },
  version: { type: "boolean", short: "v", help: "print the version" },
} as const;

/** The `--help` text. */
export function usage(): string {
  const lines = Object.entries(FLAGS).map(([name, flag]) => {
    const env = "env" in flag ? ` [${flag.env}]` : "";
    return `  --${name.padEnd(18)} ${flag.help}${env}`;
  });
  return `Usage: toolkits-mcp [options]\n\nServes the pager, sheets and marketing tools over MCP.\n\nOptions:\n${lines.join("\n")}\n`;
}

export type ParsedCommand =
  | { command: "help" }
  | { command: "version" }
  | { command: "serve"; options: ServerOptions };

/**
 * Reads flags, falling back to `MCP_*` environment variables, then defaults.
 * @throws Error naming the bad flag and what it accepts.
 */
export function parseCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): ParsedCommand {
  const { values } = parseArgs({
    args: argv,
    options: Object.fromEntries(
      Object.entries(FLAGS).map(([name, flag]) => [
        name,
        { type: flag.type, ...("short" in flag ? { short: flag.short } : {}) },
      ]),
    ),
    strict: true,
  });
  if (values.help) return { command: "help" };
  if (values.version) return { command: "version" };
  const text = (name: keyof typeof FLAGS): string | undefined => {
    const flag = FLAGS[name];
    const value = values[name];
    if (typeof value === "string") return value;
    return "env" in flag ? env[flag.env] || undefined : undefined;
  };
  const on = (name: keyof typeof FLAGS): boolean => {
    const flag = FLAGS[name];
    if (values[name] === true) return true;
    return "env" in flag && ["1", "true", "yes"].includes((env[flag.env] ?? "").toLowerCase());
  };
  const list = (name: keyof typeof FLAGS): string[] =>
    (text(name) ?? "")
      .split(",")
      .map((item) => item.trim())
      .filter(Boolean);

  const transport = oneOf("--transport", text("transport") ?? "stdio", ["stdio", "http"] as const);
  const toolkits = list("toolkits");
  for (const id of toolkits) oneOf("--toolkits", id, ALL_TOOLKITS);
  return {
    command: "serve",
    options: {
      transport,
      host: text("host") ?? "127.0.0.1",
      port: integer("--port", text("port") ?? "3000", 0, 65_535),
      toolkits: toolkits.length ? toolkits : [...ALL_TOOLKITS],
      tools: list("tools"),
      excludeTools: list("exclude-tools"),
      toolsets: list("toolsets"),
      readOnly: on("read-only"),
      toolNames: oneOf("--tool-names", text("tool-names") ?? "underscore", TOOL_NAME_FORMS),
      catalog: oneOf("--catalog", text("catalog") ?? "full", ["full", "search"] as const),
      sandbox: on("sandbox"),
      maxResultBytes: integer("--max-result-bytes", text("max-result-bytes") ?? "100000", 1_000, 100_000_000),
      logLevel: oneOf("--log-level", text("log-level") ?? "warn", [
        "debug",
        "info",
        "warn",
        "error",
      ] as const),
      publicUrl: text("public-url"),
      allowedHosts: list("allowed-hosts"),
      allowedOrigins: list("allowed-origins"),
      maxBodyBytes: integer("--max-body-bytes", text("max-body-bytes") ?? "1000000", 1_000, 100_000_000),
      requestTimeoutMs: integer(
        "--request-timeout-ms",
        text("request-timeout-ms") ?? "120000",
        100,
        3_600_000,
      ),
    },
  };
}

function oneOf<const T extends readonly string[]>(flag: string, value: string, allowed: T): T[number] {
  if (!allowed.includes(value))
    throw new Error(`${flag} must be one of ${allowed.join(", ")} (got "${value}").`);
  return value as T[number];
}

function integer(flag: string, value: string, min: number, max: number): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
    throw new Error(`${flag} must be an integer from ${min} to ${max} (got "${value}").`);
  }
  return parsed;
}
