import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioV2 } from "@modelcontextprotocol/client/stdio";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as StdioV1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CLI } from "./spawn.js";

/**
 * The two SDK generations our users' clients are built on: v1 (`@modelcontextprotocol/sdk`),
 * which speaks 2025-11-25, and v2 (`@modelcontextprotocol/client`), pinned to 2026-07-28.
 */
export const GENERATIONS = ["v1", "v2"] as const;
export type Generation = (typeof GENERATIONS)[number];

/** What both generations' clients show a test: a listing, and calls as a model sees them. */
export interface TestClient {
  generation: Generation;
  protocolVersion(): string | undefined;
  /** The server's identity, from `initialize` (2025) or `server/discover` (2026-07-28). */
  serverInfo(): { name: string; version: string; icons?: Icon[] } | undefined;
  listTools(): Promise<ListedTool[]>;
  call(
    name: string,
    args?: Record<string, unknown>,
    options?: {
      signal?: AbortSignal;
      onprogress?: (progress: { progress: number; total?: number }) => void;
      /** Sent as the request's `_meta` (trace context, say), beside what the SDK adds. */
      meta?: Record<string, string>;
    },
  ): Promise<Seen>;
  /** What the server wrote on stderr (stdio only). */
  stderr(): string;
  close(): Promise<void>;
}

/** An icon as MCP lists it (2025-11-25 and 2026-07-28). */
export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
}

export interface ListedTool {
  name: string;
  icons?: Icon[];
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

export interface Seen {
  isError: boolean;
  text: string;
  data: Record<string, unknown> | undefined;
}

const MODERN = { versionNegotiation: { mode: { pin: "2026-07-28" } } } as const;

/** Starts the built binary over stdio with `args` and only `env`, and connects a client. */
export async function connectStdio(
  generation: Generation,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<TestClient> {
  const params = {
    command: process.execPath,
    args: [CLI, ...args],
    env: { PATH: process.env.PATH ?? "", XDG_CONFIG_HOME: "/nonexistent-config", ...env },
    stderr: "pipe" as const,
  };
  const transport = generation === "v1" ? new StdioV1(params) : new StdioV2(params);
  let stderr = "";
  transport.stderr?.on("data", (chunk) => (stderr += chunk));
  return connect(generation, transport, () => stderr);
}

/** Connects a client to a server's `/mcp` URL over Streamable HTTP, with `headers` on every request. */
export async function connectHttp(
  generation: Generation,
  url: string,
  headers: Record<string, string> = {},
): Promise<TestClient> {
  const options = { requestInit: { headers } };
  const transport =
    generation === "v1" ? new HttpV1(new URL(url), options) : new HttpV2(new URL(url), options);
  return connect(generation, transport, () => "");
}

type AnyTransport = StdioV1 | StdioV2 | HttpV1 | HttpV2;

async function connect(
  generation: Generation,
  transport: AnyTransport,
  stderr: () => string,
): Promise<TestClient> {
  const info = { name: `e2e-${generation}`, version: "0.0.0" };
  if (generation === "v1") {
    const client = new ClientV1(info);
    // v1 tells the negotiated revision only to transports that take it; record it on the way.
    const v1 = transport as { setProtocolVersion?: (version: string) => void };
    const original = v1.setProtocolVersion?.bind(transport);
    let negotiated: string | undefined;
    v1.setProtocolVersion = (version) => {
      negotiated = version;
      original?.(version);
    };
    await client.connect(transport as StdioV1 | HttpV1);
    return {
      generation,
      protocolVersion: () => negotiated,
      serverInfo: () => client.getServerVersion(),
      listTools: async () => (await client.listTools()).tools as ListedTool[],
      call: async (name, args = {}, { meta, ...options } = {}) =>
        seen(
          (await client.callTool(
            { name, arguments: args, ...(meta && { _meta: meta }) },
            undefined,
            options,
          )) as Parameters<typeof seen>[0],
        ),
      stderr,
      close: () => client.close(),
    };
  }
  const client = new ClientV2(info, MODERN);
  await client.connect(transport as StdioV2 | HttpV2);
  return {
    generation,
    protocolVersion: () => client.getNegotiatedProtocolVersion(),
    serverInfo: () => client.getServerVersion(),
    listTools: async () => (await client.listTools()).tools as ListedTool[],
    call: async (name, args = {}, { meta, ...options } = {}) =>
      seen(await client.callTool({ name, arguments: args, ...(meta && { _meta: meta }) }, options)),
    stderr,
    close: () => client.close(),
  };
}

/** A tool result as a model sees it: whether it failed, its first text, its structured content. */
export function seen(result: { isError?: boolean; content?: unknown; structuredContent?: unknown }): Seen {
  const first = (result.content as { type: string; text?: string }[] | undefined)?.[0];
  return {
    isError: result.isError === true,
    text: first?.type === "text" ? (first.text ?? "") : "",
    data: result.structuredContent as Record<string, unknown> | undefined,
  };
}

/** The JSON-RPC message in an HTTP answer, whether sent as JSON or as a server-sent event. */
export async function jsonRpcAnswer(response: Response): Promise<Record<string, unknown>> {
  const text = await response.text();
  if (!(response.headers.get("content-type") ?? "").includes("text/event-stream")) return JSON.parse(text);
  const events = text.split("\n").filter((line) => line.startsWith("data:"));
  const messages = events.map((line) => JSON.parse(line.slice(5)) as Record<string, unknown>);
  const answer = messages.find((message) => "result" in message || "error" in message);
  if (!answer) throw new Error(`no JSON-RPC answer in: ${text.slice(0, 300)}`);
  return answer;
}

/**
 * A 2026-07-28 `tools/list` posted to `url` as a raw HTTP request (for what an SDK client hides:
 * the cache hints), declaring `capabilities`; resolves to its result.
 */
export async function modernToolsList(
  url: string,
  capabilities: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": capabilities,
  };
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/list",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta } }),
  });
  return (await jsonRpcAnswer(response)).result as Record<string, unknown>;
}
